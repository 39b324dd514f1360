package io.echomq.web.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.idp.KeycloakServer;
import io.echomq.web.E2eDeployment;
import io.echomq.web.E2eProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Single sign-on for the console in a real headless Chromium: the WAR on Payara Micro pointed at
 * a real identity provider (Keycloak, {@link E2eProvider}); an admin and a submitter sign in at
 * the provider's own login page and see what each may do; signing out ends the session here
 * and at the provider, so the next visit asks for a password again.
 */
@WithRealServices
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProviderSignInIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path TARGET = Path.of(System.getProperty("java.io.tmpdir", "target"));
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final String QUEUE = "sso-idle";

    private static ChromeDriver browser;
    private static E2eDeployment deployment;
    private static KeycloakServer keycloak;
    private static String console;

    @BeforeAll
    static void deployWithTheProvider(ValkeyService valkey, PostgresService postgres) {
        browser = ConsoleBrowser.start(TARGET.resolve("provider-sign-in-it"));
        keycloak = E2eProvider.keycloak();
        Map<String, String> settings = new HashMap<>(E2eProvider.environment(keycloak));
        settings.put("ECHOMQ_QUEUES", QUEUE);
        deployment = new E2eDeployment(valkey, postgres, 4, settings);
        console = deployment.server.baseUrl().replaceAll("/$", "") + "/console/";
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (deployment != null) {
            deployment.close();
        }
    }

    @Test
    @Order(1)
    void anAdminSignsInAtTheProviderAndMaySteer() {
        browser.get(console);
        signInAtTheProvider(E2eProvider.ADMIN, E2eProvider.ADMIN_PASSWORD);

        assertThat(waitFor(By.cssSelector("[data-testid=session-user]")).getText()).isEqualTo(E2eProvider.ADMIN);
        assertThat(browser.findElement(By.id("session")).getText()).contains("admin");
        browser.get(console + "#/queues/" + QUEUE);
        WebElement pause = waitFor(By.cssSelector("[data-testid=pause-toggle]"));
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.elementToBeClickable(pause));
        assertThat(pause.getAttribute("title")).as("nothing withheld from an admin").isNullOrEmpty();
        ConsoleBrowser.screenshot(browser, SCREENSHOTS, "sso-admin");

        Cookie session = browser.manage().getCookies().stream().filter(c -> c.getName().equalsIgnoreCase("JSESSIONID"))
                .findFirst().orElseThrow(() -> new AssertionError("no session cookie: " + browser.manage().getCookies()));
        assertThat(session.isHttpOnly()).as("the session cookie is out of scripts' reach").isTrue();
        // SameSite as the server sent it (Chromium's own store reports Lax for a cookie sent without one).
        assertThat(sessionCookieAsSent()).as("Set-Cookie").containsIgnoringCase("HttpOnly");
    }

    /** The Set-Cookie of the session an anonymous visit to the console begins (the sign-in in flight). */
    private static String sessionCookieAsSent() {
        try {
            java.net.http.HttpResponse<Void> visit = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(console)).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding());
            return visit.headers().allValues("Set-Cookie").stream().filter(c -> c.toUpperCase().startsWith("JSESSIONID="))
                    .findFirst().orElseThrow(() -> new AssertionError("no session cookie: " + visit.headers().map()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    @Order(2)
    void signingOutEndsTheSessionAtTheProviderTooAndASubmitterSignsInToLookOnly() {
        signOutAndExpectTheProvidersLoginPage();

        signInAtTheProvider(E2eProvider.SUBMITTER, E2eProvider.SUBMITTER_PASSWORD);
        assertThat(waitFor(By.cssSelector("[data-testid=session-user]")).getText()).isEqualTo(E2eProvider.SUBMITTER);
        new WebDriverWait(browser, WAIT).until(d -> d.findElement(By.id("notices")).getText().contains("without the admin role"));
        browser.get(console + "#/queues/" + QUEUE);
        WebElement pause = waitFor(By.cssSelector("[data-testid=pause-toggle]"));
        new WebDriverWait(browser, WAIT).until(d -> "needs the admin role".equals(pause.getAttribute("title")));
        ConsoleBrowser.screenshot(browser, SCREENSHOTS, "sso-submitter");
    }

    @Test
    @Order(3)
    void theAdminComesBackAfterTheSubmitterSignedOut() {
        signOutAndExpectTheProvidersLoginPage();

        signInAtTheProvider(E2eProvider.ADMIN, E2eProvider.ADMIN_PASSWORD);
        assertThat(waitFor(By.cssSelector("[data-testid=session-user]")).getText()).isEqualTo(E2eProvider.ADMIN);
    }

    private static void signOutAndExpectTheProvidersLoginPage() {
        browser.get(console);
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.elementToBeClickable(By.cssSelector("[data-testid=sign-out]"))).click();
        // The provider's sign-out returns the browser to the console, which sends it to sign in again:
        // the provider's login form, not a silent sign-in, since its session ended too.
        waitFor(By.id("username"));
        assertThat(browser.getCurrentUrl()).startsWith(keycloak.issuer(E2eProvider.REALM));
    }

    /** On the provider's login page (the browser is on it, or on its way), signs in and waits for the console. */
    private static void signInAtTheProvider(String user, String password) {
        new WebDriverWait(browser, WAIT).until(d -> d.getCurrentUrl().startsWith(keycloak.issuer(E2eProvider.REALM)));
        waitFor(By.id("username")).sendKeys(user);
        browser.findElement(By.id("password")).sendKeys(password);
        browser.findElement(By.id("kc-login")).click();
        new WebDriverWait(browser, WAIT).until(d -> d.getCurrentUrl().startsWith(console));
    }

    private static WebElement waitFor(By by) {
        return new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(by));
    }
}
