package io.echomq.web;

import io.echomq.testkit.idp.KeycloakServer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The identity provider of the sign-in tests: the JVM's Keycloak ({@link KeycloakServer}) with
 * the realms of {@code src/test/resources/keycloak/}, the WAR's settings that point at it, and
 * the tokens and sessions its users and machine clients get there.
 *
 * <p>Realm {@value #REALM}: people {@value #ADMIN} (realm role admin) and {@value #SUBMITTER}
 * (submitter), who sign in to the console (client {@value #CONSOLE_CLIENT}); machine clients
 * with the client-credentials grant, their access tokens for the audience {@value #AUDIENCE}:
 * {@value #MACHINE} (submitter), {@value #MACHINE_ADMIN} (admin), {@value #SHORT_LIVED}
 * (submitter, tokens valid for 1 s). Realm {@value #FOREIGN_REALM}: a client of the same name
 * and role, whose tokens this deployment must refuse.
 */
public final class E2eProvider {

    public static final String REALM = "echomq";
    public static final String FOREIGN_REALM = "elsewhere";
    public static final String CONSOLE_CLIENT = "echomq-console";
    public static final String AUDIENCE = "echomq-api";
    public static final String ADMIN = "olivia";
    public static final String ADMIN_PASSWORD = "olivia-password-for-tests";
    public static final String SUBMITTER = "sam";
    public static final String SUBMITTER_PASSWORD = "sam-password-for-tests";
    public static final String MACHINE = "echomq-machine";
    public static final String MACHINE_ADMIN = "echomq-machine-admin";
    public static final String SHORT_LIVED = "echomq-short-lived";

    private static final Map<String, String> SECRETS = Map.of(
            REALM + "/" + MACHINE, "machine-secret-for-tests",
            REALM + "/" + MACHINE_ADMIN, "machine-admin-secret-for-tests",
            REALM + "/" + SHORT_LIVED, "short-lived-secret-for-tests",
            FOREIGN_REALM + "/" + MACHINE, "elsewhere-secret-for-tests");
    private static final Pattern LOGIN_FORM_ACTION = Pattern.compile("<form[^>]*id=\"kc-form-login\"[^>]*action=\"([^\"]+)\"");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private E2eProvider() {
    }

    /** The JVM's Keycloak, started at the first call. */
    public static KeycloakServer keycloak() {
        return KeycloakServer.shared("keycloak/echomq-realm.json", "keycloak/elsewhere-realm.json");
    }

    /** The WAR's settings for the realm, as an operator would set them (docs/DEPLOYING.md). */
    public static Map<String, String> environment(KeycloakServer keycloak) {
        Map<String, String> env = new HashMap<>();
        env.put("ECHOMQ_SECURITY_OIDC_ISSUER", keycloak.issuer(REALM));
        env.put("ECHOMQ_SECURITY_OIDC_CLIENT_ID", CONSOLE_CLIENT);
        env.put("ECHOMQ_SECURITY_OIDC_CLIENT_SECRET", "console-secret-for-tests");
        env.put("ECHOMQ_SECURITY_OIDC_AUDIENCE", AUDIENCE);
        env.put("ECHOMQ_SECURITY_OIDC_ROLES_CLAIM", "roles");
        // No tolerance: the expired-token check waits 1 s for its token to lapse, not 31.
        env.put("ECHOMQ_SECURITY_OIDC_CLOCK_SKEW_SECONDS", "0");
        return env;
    }

    /** An access token of {@code client} in {@code realm} by the client-credentials grant. */
    public static String clientCredentialsToken(KeycloakServer keycloak, String realm, String client) {
        String secret = SECRETS.get(realm + "/" + client);
        String basic = Base64.getEncoder().encodeToString((client + ":" + secret).getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> answer = send(HttpClient.newHttpClient(), HttpRequest.newBuilder(keycloak.tokenEndpoint(realm))
                .header("Authorization", "Basic " + basic).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")).build());
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("no token for " + client + " in " + realm + ": HTTP " + answer.statusCode() + " " + answer.body());
        }
        return json(answer.body()).getString("access_token");
    }

    /** The {@code exp} of a JWT, read without checking it (the test waits for it to pass). */
    public static long expiresAtEpochSecond(String jwt) {
        String payload = new String(Base64.getUrlDecoder().decode(jwt.split("\\.")[1]), StandardCharsets.UTF_8);
        return json(payload).getJsonNumber("exp").longValue();
    }

    /**
     * Signs {@code user} in to the console at {@code appBaseUrl} the way a browser does, through
     * the provider's login form, and returns the console's session cookie ({@code name=value}).
     */
    public static String consoleSession(String appBaseUrl, String user, String password) {
        HttpClient browser = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        CookieJar cookies = new CookieJar();
        HttpResponse<String> toProvider = cookies.send(browser, HttpRequest.newBuilder(URI.create(appBaseUrl + "/console/")));
        String authorize = location(toProvider, "the console sends an anonymous browser to the provider");
        HttpResponse<String> loginPage = cookies.send(browser, HttpRequest.newBuilder(URI.create(authorize)));
        Matcher action = LOGIN_FORM_ACTION.matcher(loginPage.body());
        if (loginPage.statusCode() != 200 || !action.find()) {
            throw new IllegalStateException("no login form at " + authorize + ": HTTP " + loginPage.statusCode());
        }
        String form = "username=" + URLEncoder.encode(user, StandardCharsets.UTF_8) + "&password="
                + URLEncoder.encode(password, StandardCharsets.UTF_8) + "&credentialId=";
        HttpResponse<String> signedIn = cookies.send(browser, HttpRequest.newBuilder(URI.create(action.group(1).replace("&amp;", "&")))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form)));
        String callback = location(signedIn, "the provider accepts " + user + " and sends the browser back");
        HttpResponse<String> console = cookies.send(browser, HttpRequest.newBuilder(URI.create(callback)));
        location(console, "the console's callback begins the session");
        return cookies.cookieFor(URI.create(appBaseUrl), "JSESSIONID");
    }

    /**
     * A browser's cookies, per host and port, as plain HTTP on loopback needs them: the JDK's
     * CookieManager withholds cookies marked {@code Secure} over HTTP, as Keycloak marks its
     * own, where a browser treats loopback as a secure context and sends them.
     */
    private static final class CookieJar {
        private final Map<String, Map<String, String>> byAuthority = new HashMap<>();

        HttpResponse<String> send(HttpClient client, HttpRequest.Builder request) {
            URI uri = request.build().uri();
            Map<String, String> jar = byAuthority.computeIfAbsent(uri.getRawAuthority(), a -> new java.util.LinkedHashMap<>());
            if (!jar.isEmpty()) {
                request.header("Cookie", jar.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                        .collect(java.util.stream.Collectors.joining("; ")));
            }
            HttpResponse<String> answer = E2eProvider.send(client, request.build());
            for (String cookie : answer.headers().allValues("Set-Cookie")) {
                String[] pair = cookie.split(";", 2)[0].split("=", 2);
                if (pair.length == 2 && !pair[1].isBlank() && !cookie.toLowerCase(java.util.Locale.ROOT).contains("max-age=0")) {
                    jar.put(pair[0].strip(), pair[1].strip());
                } else {
                    jar.remove(pair[0].strip());
                }
            }
            return answer;
        }

        String cookieFor(URI uri, String name) {
            return byAuthority.getOrDefault(uri.getRawAuthority(), Map.of()).entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase(name)).map(e -> e.getKey() + "=" + e.getValue()).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no " + name + " cookie from " + uri));
        }
    }

    private static String location(HttpResponse<String> answer, String expectation) {
        if (answer.statusCode() / 100 != 3 || answer.headers().firstValue("Location").isEmpty()) {
            throw new IllegalStateException("expected a redirect (" + expectation + "), got HTTP " + answer.statusCode() + " from "
                    + answer.uri() + ": " + answer.body().substring(0, Math.min(400, answer.body().length())));
        }
        return answer.uri().resolve(answer.headers().firstValue("Location").get()).toString();
    }

    private static HttpResponse<String> send(HttpClient client, HttpRequest request) {
        try {
            return client.send(HttpRequest.newBuilder(request, (name, value) -> true).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static JsonObject json(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}
