package io.echomq.testkit.idp;

import io.echomq.testkit.appserver.ServerInstall;
import io.echomq.testkit.services.ChildProcess;
import io.echomq.testkit.services.FreePort;
import io.echomq.testkit.services.ServiceDirectories;
import io.echomq.testkit.services.TestkitConsole;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Keycloak ({@code org.keycloak:keycloak-quarkus-dist}, unpacked by the web module's build into
 * the folder the system property {@value #HOME_PROPERTY} names) in dev mode on a free loopback
 * port, with an in-memory database and the realms of the test's resources imported at start.
 * One instance serves every test of a JVM: {@link #shared} starts it at the first call (about
 * 40 s on 2 cores, most of it Keycloak's own start) and it stops when the JVM ends. It runs on
 * a Java 21 or later ({@link ServerInstall#java21Home()}).
 *
 * <p>The realm files are copied into the distribution's {@code data/import/} (Keycloak reads
 * imports only there); the database is in memory, so nothing else is written there and every
 * start begins from the realm files.
 */
public final class KeycloakServer {

    public static final String HOME_PROPERTY = "echomq.keycloak.home";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(240);
    private static final Duration POLL = Duration.ofMillis(500);

    private static KeycloakServer shared;
    private static List<String> sharedRealms;

    private final int port;
    private final ChildProcess process;
    private final long readyMs;

    private KeycloakServer(int port, ChildProcess process, long readyMs) {
        this.port = port;
        this.process = process;
        this.readyMs = readyMs;
    }

    /**
     * The JVM's Keycloak, started now if it is not yet running, with the realms in the class-path
     * resources {@code realmResources} (realm JSON exports, e.g. {@code keycloak/echomq-realm.json}).
     * Every caller in a JVM must ask for the same realms.
     */
    public static synchronized KeycloakServer shared(String... realmResources) {
        List<String> realms = List.of(realmResources);
        if (shared != null) {
            if (!sharedRealms.equals(realms)) {
                throw new IllegalStateException("this JVM's Keycloak was started with realms " + sharedRealms
                        + "; asked again with " + realms + ": every test of a JVM must ask for the same realms");
            }
            return shared;
        }
        try {
            shared = FreePort.retrying(port -> start(port, realms));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Keycloak did not start: " + e.getMessage(), e);
        }
        sharedRealms = realms;
        Runtime.getRuntime().addShutdownHook(new Thread(shared.process::stop, "keycloak-stop"));
        TestkitConsole.info("Keycloak ready at " + shared.baseUrl() + " in " + shared.readyMs + " ms (realms " + realms + ")");
        return shared;
    }

    private static KeycloakServer start(int port, List<String> realms) throws IOException, FreePort.PortTaken {
        Path home = ServerInstall.home(HOME_PROPERTY, "bin/kc.sh");
        Path imports = home.resolve("data").resolve("import");
        Files.createDirectories(imports);
        for (String realm : realms) {
            try (InputStream json = KeycloakServer.class.getClassLoader().getResourceAsStream(realm)) {
                if (json == null) {
                    throw new IllegalArgumentException("no realm file " + realm + " on the class path");
                }
                Files.copy(json, imports.resolve(Path.of(realm).getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path directory = ServiceDirectories.fresh("keycloak-" + port);
        // env(1) hands kc.sh its Java; kc.sh execs the server JVM, so the pid held is the server's.
        List<String> command = List.of("env", "JAVA_HOME=" + ServerInstall.java21Home(), home.resolve("bin/kc.sh").toString(),
                "start-dev", "--http-host=127.0.0.1", "--http-port=" + port, "--db=dev-mem", "--import-realm");
        long begun = System.nanoTime();
        ChildProcess child = ChildProcess.start("keycloak", command, home, directory.resolve("keycloak.log"),
                ChildProcess.StopSignal.TERM, Optional.empty());
        try {
            awaitReady(port, child);
        } catch (RuntimeException e) {
            throw child.stopAfterFailedStart(e);
        }
        return new KeycloakServer(port, child, (System.nanoTime() - begun) / 1_000_000);
    }

    private static void awaitReady(int port, ChildProcess child) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI probe = URI.create("http://127.0.0.1:" + port + "/realms/master/.well-known/openid-configuration");
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!child.isAlive()) {
                throw new IllegalStateException("Keycloak exited during start:\n" + child.logTail());
            }
            try {
                HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(probe).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (answer.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Keycloak", e);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Keycloak", e);
            }
        }
        throw new IllegalStateException("Keycloak did not answer " + probe + " within " + STARTUP_TIMEOUT + ":\n" + child.logTail());
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** A realm's issuer, as its tokens name it: {@code http://127.0.0.1:<port>/realms/<realm>}. */
    public String issuer(String realm) {
        return baseUrl() + "/realms/" + realm;
    }

    public URI tokenEndpoint(String realm) {
        return URI.create(issuer(realm) + "/protocol/openid-connect/token");
    }

    /** Milliseconds from launch until the provider answered. */
    public long readyMs() {
        return readyMs;
    }

    public long pid() {
        return process.pid();
    }
}
