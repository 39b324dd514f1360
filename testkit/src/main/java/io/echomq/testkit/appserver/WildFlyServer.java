package io.echomq.testkit.appserver;


import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The WAR on WildFly ({@code standalone-microprofile.xml}) in a child JVM on loopback, from the
 * distribution the web module's build unpacks ({@code org.wildfly:wildfly-dist}, folder named by
 * the system property {@value #HOME_PROPERTY}).
 *
 * <p>Each server gets a copy of the distribution's {@code standalone/} folder under
 * {@code ${java.io.tmpdir}/echomq-services/wildfly-<port>/}, the WAR in its {@code deployments/}
 * (so the context root is {@code /echomq}), and the {@link #CLI_COMMANDS} applied once with the
 * embedded CLI: what an operator would do (docs/DEPLOYING.md shows the same lines). The server
 * binds one port picked in advance, HTTP on 127.0.0.1: HTTPS is removed
 * ({@link #UNUSED_LISTENERS}), and the management interface takes whatever port the kernel
 * gives it on 127.0.0.1, so no port of theirs can be taken by another process before WildFly
 * binds it.
 * {@link #forArchives} deploys several archives (a driver, a resource adapter, a WAR) with a
 * configuration file and CLI commands of the caller's choosing.
 *
 * <p>It is started by {@code bin/standalone.sh}, which stays the JVM's parent and writes the JVM's
 * pid to a file: {@link #pid()} and {@link #killHard()} act on that JVM.
 */
public final class WildFlyServer extends LaunchedAppServer.Unpacked {

    public static final String HOME_PROPERTY = "echomq.wildfly.home";
    public static final String CONFIG = "standalone-microprofile.xml";
    /**
     * Jakarta Security identities (the WAR's own identity store) are accepted by WildFly's
     * default application security domain only with integrated JASPI off; with it on, a valid
     * login fails with "ELY01177: Authorization failed".
     */
    public static final List<String> CLI_COMMANDS = List.of(
            "/subsystem=undertow/application-security-domain=other:write-attribute(name=integrated-jaspi,value=false)");

    /**
     * What a test server does not use, removed from every configuration before the caller's
     * commands: the HTTPS listener, a port WildFly would bind seconds after boot began. (The
     * management interface stays: MicroProfile Health is served there. It binds a port the
     * kernel picks at that moment, on 127.0.0.1: {@code jboss.management.http.port=0}.)
     */
    static final List<String> UNUSED_LISTENERS = List.of(
            "/subsystem=undertow/server=default-server/https-listener=https:remove");

    private static final Duration CLI_TIMEOUT = Duration.ofMinutes(2);

    private WildFlyServer(Path home, int port, String contextRoot, ServerJvm jvm) {
        super(home, port, contextRoot, jvm);
    }

    /**
     * Starts describing the WAR's server: {@value #CONFIG} with the {@link #CLI_COMMANDS}, the WAR
     * as {@code echomq.war}, ready once {@code /echomq/api/about} answers.
     */
    public static Builder forWar(Path war) {
        return new Builder(List.of(war)).asTheEchoMqWar().serverConfig(CONFIG).cliCommands(CLI_COMMANDS.toArray(String[]::new));
    }

    /**
     * Starts describing a server that deploys {@code archives} (e.g. a JDBC driver jar, a resource
     * adapter {@code .rar}, a {@code .war}) by copying them, under their own file names, into its
     * {@code deployments/} folder. WildFly deploys them in parallel and orders them by their
     * dependencies (a WAR's {@code jboss-deployment-structure.xml} dependency on
     * {@code deployment.echomq.rar} waits for the adapter). The context root is the last WAR's
     * file name without {@code .war}; the readiness path is relative to it. Unlike
     * {@link #forWar}, nothing is configured unless asked: {@link Builder#serverConfig},
     * {@link Builder#cliCommands}.
     *
     * <pre>{@code
     * WildFlyServer.forArchives(postgresqlJar, rar, war)
     *         .serverConfig("standalone.xml")
     *         .cliCommands("data-source add --name=orders --jndi-name=java:/jdbc/orders --driver-name=postgresql.jar …")
     *         .env("ECHOMQ_VALKEY_URL", valkey.url())
     *         .readinessPath("/stats")
     *         .start();
     * }</pre>
     */
    public static Builder forArchives(Path... archives) {
        if (archives.length == 0) {
            throw new IllegalArgumentException("no archive to deploy");
        }
        return new Builder(List.of(archives));
    }

    /** How to start a server; {@link #start()} starts it. */
    public static final class Builder extends LaunchedAppServer.UnpackedServerBuilder<Builder, WildFlyServer> {

        private final List<String> cliCommands = new ArrayList<>();
        private String serverConfig = CONFIG;
        private String javaOpts;

        private Builder(List<Path> archives) {
            super(archives, "/", "wildfly", HOME_PROPERTY, "bin/standalone.sh");
        }

        @Override
        Builder self() {
            return this;
        }

        /** The server configuration file in {@code standalone/configuration/}; by default {@value WildFlyServer#CONFIG}. */
        public Builder serverConfig(String file) {
            this.serverConfig = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * Management operations and CLI commands applied once, before the first start, with the
         * embedded CLI ({@code embed-server}) against {@link #serverConfig}: what an operator does
         * once (data sources, subsystem attributes, resource adapter activations).
         */
        public Builder cliCommands(String... commands) {
            cliCommands.addAll(List.of(commands));
            return this;
        }

        /** The JVM's options ({@code JAVA_OPTS}), replacing {@code standalone.conf}'s defaults (-Xmx512m and friends). */
        public Builder javaOpts(String options) {
            this.javaOpts = Objects.requireNonNull(options, "options");
            return this;
        }

        /** Copies the distribution's {@code standalone/}, applies the CLI commands and deploys the archives. */
        @Override
        WildFlyServer prepare(Path home, int port, Path directory) {
            Path base = directory.resolve("standalone");
            ServerInstall.copyTree(home.resolve("standalone"), base);
            List<String> commands = new ArrayList<>(UNUSED_LISTENERS);
            commands.addAll(cliCommands);
            configure(home, base, directory, serverConfig, commands);
            for (int i = 0; i < archives.size(); i++) {
                ServerInstall.copy(archives.get(i), base.resolve("deployments").resolve(deployedNames.get(i)));
            }

            Map<String, String> launch = new HashMap<>(env);
            launch.put("JAVA_HOME", ServerInstall.javaHome());
            if (javaOpts != null) {
                launch.put("JAVA_OPTS", javaOpts);
            }
            // standalone.sh then runs the JVM in the background, relays signals to it and writes its pid.
            launch.put("LAUNCH_JBOSS_IN_BACKGROUND", "1");
            Path jvmPid = directory.resolve("jvm.pid");
            launch.put("JBOSS_PIDFILE", jvmPid.toString());
            List<String> command = new ArrayList<>(List.of(home.resolve("bin/standalone.sh").toString(),
                    "-c", serverConfig,
                    "-Djboss.server.base.dir=" + base,
                    "-Djboss.bind.address=127.0.0.1",
                    "-Djboss.bind.address.management=127.0.0.1",
                    "-Djboss.http.port=" + port,
                    "-Djboss.management.http.port=0"));
            systemProperties.forEach((key, value) -> command.add("-D" + key + "=" + value));
            ServerJvm jvm = new ServerJvm("WildFly", command, launch, directory, Optional.of(jvmPid), readiness(port), " ERROR [",
                    startupTimeout);
            return new WildFlyServer(home, port, contextRoot(), jvm);
        }
    }

    /** Applies {@code commands} to the server's configuration with the embedded CLI (no server running), from a script file. */
    private static void configure(Path home, Path base, Path directory, String serverConfig, List<String> commands) {
        List<String> script = new ArrayList<>();
        script.add("embed-server --server-config=" + serverConfig);
        script.addAll(commands);
        script.add("stop-embedded-server");
        Path file = directory.resolve("configure.cli");
        ServerInstall.write(file, String.join("\n", script) + "\n");
        String output = ServerInstall.runTool(List.of(home.resolve("bin/jboss-cli.sh").toString(), "--file=" + file), directory,
                Map.of("JAVA_HOME", ServerInstall.javaHome(), "JAVA_OPTS", "-Djboss.server.base.dir=" + base), CLI_TIMEOUT);
        // The CLI exits 0 even when an operation of the script failed.
        if (output.contains("\"outcome\" => \"failed\"")) {
            throw new IllegalStateException("jboss-cli could not configure " + base + " (" + file + "):\n" + output);
        }
    }

    @Override
    public String name() {
        return "wildfly";
    }

    /** From the distribution's folder name, {@code wildfly-35.0.1.Final}. */
    @Override
    public String version() {
        return versionInName(home, "wildfly-", "").orElse(home.getFileName().toString());
    }
}
