package io.echomq.testkit;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The WAR on WildFly ({@code standalone-microprofile.xml}) in a child JVM on loopback, from the
 * distribution the web module's build unpacks ({@code org.wildfly:wildfly-dist}, folder named by
 * the system property {@value #HOME_PROPERTY}).
 *
 * <p>Each server gets a copy of the distribution's {@code standalone/} folder under
 * {@code ${java.io.tmpdir}/echomq-services/wildfly-<port>/}, the WAR in its {@code deployments/}
 * (so the context root is {@code /echomq}), and the {@link #CLI_COMMANDS} applied once with the
 * embedded CLI: what an operator would do (docs/DEPLOYING.md shows the same lines). Every port
 * (HTTP, HTTPS, management) is a free one on 127.0.0.1.
 *
 * <p>It is started by {@code bin/standalone.sh}, which stays the JVM's parent and writes the JVM's
 * pid to a file: {@link #pid()} and {@link #killHard()} act on that JVM.
 */
public final class WildFlyServer extends LaunchedAppServer {

    public static final String HOME_PROPERTY = "echomq.wildfly.home";
    public static final String CONFIG = "standalone-microprofile.xml";
    /**
     * Jakarta Security identities (the WAR's own identity store) are accepted by WildFly's
     * default application security domain only with integrated JASPI off; with it on, a valid
     * login fails with "ELY01177: Authorization failed".
     */
    public static final List<String> CLI_COMMANDS = List.of(
            "/subsystem=undertow/application-security-domain=other:write-attribute(name=integrated-jaspi,value=false)");

    private static final String CONTEXT_ROOT = "echomq";
    private static final Duration CLI_TIMEOUT = Duration.ofMinutes(2);

    private final Path home;

    private WildFlyServer(Path home, int port, ServerJvm jvm) {
        super(port, CONTEXT_ROOT, jvm);
        this.home = home;
    }

    /** Deploys {@code war} with {@code env} on the unpacked WildFly and returns once the application answers. */
    public static WildFlyServer start(Path war, Map<String, String> env) {
        Path home = ServerInstall.home(HOME_PROPERTY, "bin/standalone.sh");
        int port = FreePort.onLoopback();
        Path directory = ServiceDirectories.fresh("wildfly-" + port);
        Path base = directory.resolve("standalone");
        ServerInstall.copyTree(home.resolve("standalone"), base);
        ServerInstall.copy(war, base.resolve("deployments").resolve(CONTEXT_ROOT + ".war"));
        configure(home, base, directory);

        Map<String, String> launch = new HashMap<>(env);
        launch.put("JAVA_HOME", ServerInstall.javaHome());
        // standalone.sh then runs the JVM in the background, relays signals to it and writes its pid.
        launch.put("LAUNCH_JBOSS_IN_BACKGROUND", "1");
        Path jvmPid = directory.resolve("jvm.pid");
        launch.put("JBOSS_PIDFILE", jvmPid.toString());
        List<String> command = List.of(home.resolve("bin/standalone.sh").toString(),
                "-c", CONFIG,
                "-Djboss.server.base.dir=" + base,
                "-Djboss.bind.address=127.0.0.1",
                "-Djboss.bind.address.management=127.0.0.1",
                "-Djboss.http.port=" + port,
                "-Djboss.https.port=" + FreePort.onLoopback(),
                "-Djboss.management.http.port=" + FreePort.onLoopback(),
                "-Djboss.management.https.port=" + FreePort.onLoopback());
        URI readiness = URI.create("http://127.0.0.1:" + port + "/" + CONTEXT_ROOT + "/api/about");
        ServerJvm jvm = new ServerJvm("WildFly", command, launch, directory, Optional.of(jvmPid), readiness, " ERROR [",
                ServerJvm.DEFAULT_STARTUP_TIMEOUT);
        WildFlyServer server = new WildFlyServer(home, port, jvm);
        jvm.launch();
        return server;
    }

    /** Applies {@link #CLI_COMMANDS} to the server's configuration with the embedded CLI (no server running). */
    private static void configure(Path home, Path base, Path directory) {
        String commands = "embed-server --server-config=" + CONFIG + "," + String.join(",", CLI_COMMANDS) + ",stop-embedded-server";
        ProcessBuilder cli = new ProcessBuilder(home.resolve("bin/jboss-cli.sh").toString(), "--commands=" + commands)
                .directory(directory.toFile())
                .redirectErrorStream(true);
        cli.environment().put("JAVA_HOME", ServerInstall.javaHome());
        cli.environment().put("JAVA_OPTS", "-Djboss.server.base.dir=" + base);
        try {
            Process process = cli.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(CLI_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0
                    || !output.contains("\"outcome\" => \"success\"")) {
                process.destroyForcibly();
                throw new IllegalStateException("jboss-cli could not configure " + base + ": " + commands + "\n" + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run jboss-cli in " + home, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while configuring WildFly", e);
        }
    }

    @Override
    public String name() {
        return "wildfly";
    }

    /** From the distribution's folder name, {@code wildfly-35.0.1.Final}. */
    @Override
    public String version() {
        String folder = home.getFileName().toString();
        return folder.startsWith("wildfly-") ? folder.substring("wildfly-".length()) : folder;
    }
}
