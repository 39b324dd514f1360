package io.echomq.testkit.appserver;


import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The real product for end-to-end tests: Payara Micro running a WAR in a child JVM.
 *
 * <pre>{@code
 * try (PayaraMicroServer payara = PayaraMicroServer.forWar(war)
 *         .env(Map.of("ECHOMQ_VALKEY_URL", valkey.url()))
 *         .start()) {
 *     HttpResponse<String> about = get(payara.baseUrl() + "/api/about");
 * }
 * }</pre>
 *
 * <p>{@link Builder#start()} returns only once {@code GET <baseUrl>/api/about} answers 200: Payara
 * logs "Deployed" and "ready" even when the deployment failed, so the log line proves nothing. A
 * {@code SEVERE} line in the log during start-up, the JVM exiting, or no 200 within the timeout
 * (180 s) fails the start with the end of the log; the server is then killed ({@link ServerJvm}
 * does this for every {@link AppServer}).
 *
 * <p>The runtime is the {@code fish.payara.extras:payara-micro} jar on the class path (a dependency
 * of this module), run with {@code --nocluster} and the two preboot commands that bind HTTP to
 * 127.0.0.1 and switch Hazelcast off. Its files live in
 * {@code ${java.io.tmpdir}/echomq-services/payara-<port>/} (the module's {@code target/} under
 * surefire and failsafe): {@code server.log} (appended to across restarts), the preboot file and
 * Payara's own temporary files. {@code bin/echomq-dev} runs the same command line
 * ({@link Builder#commandLine}, printed by {@code io.echomq.testkit.dev.DevPayara}).
 *
 * <p>The child's environment is the test JVM's without any {@code ECHOMQ_*} variable (a developer's
 * shell settings must not leak into a test), plus the variables given to {@link Builder#env}.
 *
 * <p>Several archives, deployed in order (a resource adapter before the application that uses it):
 *
 * <pre>{@code
 * PayaraMicroServer.forArchives(rar, war)          // --deploy echomq.rar --deploy orders.war
 *         .addLibs(postgresDriverJar)              // --addlibs: on the server's class path
 *         .postBootCommands("create-jdbc-connection-pool …", "create-jdbc-resource …")
 *         .systemProperty("echomq.valkey.url", valkey.url())
 *         .readinessPath("/stats")                 // under the WAR's context root, /orders
 *         .start();
 * }</pre>
 *
 * There the context root is the WAR's file name ({@code orders.war} → {@code /orders}): Payara's
 * {@code --contextroot} names only the first deployment's, which would be the adapter's.
 */
public final class PayaraMicroServer extends LaunchedAppServer {

    /** HTTP on loopback only; Hazelcast (port 6900 on all interfaces, even with --nocluster) off. */
    static final List<String> PREBOOT_COMMANDS = List.of(
            "set configs.config.server-config.network-config.network-listeners.network-listener.http-listener.address=127.0.0.1",
            "set configs.config.server-config.hazelcast-config-specific-configuration.enabled=false");

    private final Path payaraJar;

    private PayaraMicroServer(Builder builder, int port, String contextRoot, ServerJvm jvm, Path payaraJar) {
        super(port, contextRoot, jvm);
        this.payaraJar = payaraJar;
    }

    /** Starts describing a server for {@code war} (an existing {@code .war} file). */
    public static Builder forWar(Path war) {
        return new Builder(List.of(war), false);
    }

    /**
     * Starts describing a server that deploys {@code archives} ({@code .rar}, {@code .war}) in
     * this order: a resource adapter first, then the applications that use it. The context root
     * is the last WAR's file name without {@code .war}; the readiness path is relative to it.
     */
    public static Builder forArchives(Path... archives) {
        if (archives.length == 0) {
            throw new IllegalArgumentException("no archive to deploy");
        }
        return new Builder(List.of(archives), true);
    }

    /** How to start a server; {@link #start()} starts it. */
    public static final class Builder extends LaunchedAppServer.Builder<Builder, PayaraMicroServer> {

        private final boolean several;
        private final List<String> jvmOptions = new ArrayList<>();
        private final List<Path> libs = new ArrayList<>();
        private final List<String> postBootCommands = new ArrayList<>();
        private String contextRoot = ECHOMQ_CONTEXT_ROOT;
        private Path payaraJar;
        private Path javaHome = Path.of(ServerInstall.javaHome());

        private Builder(List<Path> archives, boolean several) {
            super(archives, ECHOMQ_READINESS_PATH, "payara");
            this.several = several;
        }

        @Override
        Builder self() {
            return this;
        }

        /** Jars for the server's own class path ({@code --addlibs}), e.g. the JDBC driver of a connection pool. */
        public Builder addLibs(Path... jars) {
            for (Path jar : jars) {
                libs.add(Objects.requireNonNull(jar, "jar").toAbsolutePath().normalize());
            }
            return this;
        }

        /**
         * asadmin commands run after boot and before the deployments ({@code --postbootcommandfile}),
         * one a line: e.g. {@code create-jdbc-connection-pool} and {@code create-jdbc-resource}.
         */
        public Builder postBootCommands(String... commands) {
            postBootCommands.addAll(List.of(commands));
            return this;
        }

        /** Options for the server's JVM, before {@code -jar} (e.g. {@code -Xmx512m}, {@code -Dkey=value}). */
        public Builder jvmOptions(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        /** The HTTP port; by default a free loopback port. */
        public Builder port(int port) {
            if (port <= 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /** The WAR's context root, for a single WAR ({@link #forWar}); several archives take it from the WAR's file name. */
        public Builder contextRoot(String contextRoot) {
            if (several) {
                throw new IllegalStateException("with several archives the context root is the WAR's file name; rename the WAR");
            }
            this.contextRoot = stripSlashes(Objects.requireNonNull(contextRoot, "contextRoot"));
            return this;
        }

        @Override
        String contextRoot() {
            return several ? super.contextRoot() : contextRoot;
        }

        /** The Payara Micro jar to run; by default the {@code payara-micro} jar on the class path. */
        public Builder payaraJar(Path jar) {
            this.payaraJar = Objects.requireNonNull(jar, "jar").toAbsolutePath().normalize();
            return this;
        }

        /**
         * The Java installation the server runs on; by default the test JVM's. Payara Micro 7
         * (Jakarta EE 11) needs Java 21 or later: {@link ServerInstall#java21Home()} finds one.
         */
        public Builder javaHome(Path home) {
            Path java = Objects.requireNonNull(home, "home").resolve("bin").resolve("java");
            if (!Files.isExecutable(java)) {
                throw new IllegalArgumentException("javaHome: no executable bin/java in " + home);
            }
            this.javaHome = home.toAbsolutePath().normalize();
            return this;
        }

        @Override
        void checkBeforeStart() {
            for (Path lib : libs) {
                if (!Files.exists(lib)) {
                    throw new IllegalStateException("no library at " + lib);
                }
            }
            Path jar = jar();
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("no Payara Micro jar at " + jar);
            }
        }

        private Path jar() {
            return payaraJar != null ? payaraJar : locatePayaraMicroJar();
        }

        @Override
        PayaraMicroServer prepare(int port, Path directory) {
            ServerJvm jvm = new ServerJvm("Payara Micro", command(port, directory), env, directory, Optional.empty(),
                    readiness(port), "SEVERE", startupTimeout);
            return new PayaraMicroServer(this, port, contextRoot(), jvm, jar());
        }

        /**
         * The command line {@link #start()} runs, for a program that runs Payara Micro itself
         * ({@code bin/echomq-dev}): the {@link #port} chosen, the preboot (and postboot) command
         * files and Payara's temporary folder in {@code directory}.
         */
        public List<String> commandLine(Path directory) {
            if (port == 0) {
                throw new IllegalStateException("port: the command line needs the port chosen (Builder.port)");
            }
            checkArchivesAndMore();
            return command(port, directory.toAbsolutePath().normalize());
        }

        private List<String> command(int port, Path directory) {
            Path preboot = directory.resolve("preboot.asadmin");
            Path postboot = directory.resolve("postboot.asadmin");
            Path tmp = directory.resolve("tmp");
            try {
                Files.createDirectories(tmp);
                Files.write(preboot, PREBOOT_COMMANDS, StandardCharsets.UTF_8);
                if (!postBootCommands.isEmpty()) {
                    Files.write(postboot, postBootCommands, StandardCharsets.UTF_8);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot prepare " + directory, e);
            }
            List<String> command = new ArrayList<>();
            command.add(javaHome.resolve("bin").resolve("java").toString());
            // Payara's temporary runtime folder goes under our directory, never into a shared /tmp.
            command.add("-Djava.io.tmpdir=" + tmp);
            command.addAll(jvmOptions);
            systemProperties.forEach((key, value) -> command.add("-D" + key + "=" + value));
            command.addAll(List.of("-jar", jar().toString()));
            for (Path archive : archives) {
                command.addAll(List.of("--deploy", archive.toString()));
            }
            if (!several) {
                command.addAll(List.of("--contextroot", contextRoot.isEmpty() ? "/" : contextRoot));
            }
            if (!libs.isEmpty()) {
                command.addAll(List.of("--addlibs", String.join(java.io.File.pathSeparator, libs.stream().map(Path::toString).toList())));
            }
            command.addAll(List.of(
                    "--port", Integer.toString(port),
                    "--nocluster",
                    "--prebootcommandfile", preboot.toString()));
            if (!postBootCommands.isEmpty()) {
                command.addAll(List.of("--postbootcommandfile", postboot.toString()));
            }
            return command;
        }

        private static String stripSlashes(String path) {
            String stripped = path;
            while (stripped.startsWith("/")) {
                stripped = stripped.substring(1);
            }
            while (stripped.endsWith("/")) {
                stripped = stripped.substring(0, stripped.length() - 1);
            }
            return stripped;
        }
    }

    @Override
    public String name() {
        return "payara-micro";
    }

    /** From the jar's name, {@code payara-micro-6.2025.10.jar}. */
    @Override
    public String version() {
        return versionInName(payaraJar, "payara-micro-", ".jar").orElse("unknown");
    }

    /**
     * The {@code payara-micro} jar on the class path, found through a class only it has, so that
     * neither the local Maven repository's location nor the test runner's class-path form matters.
     */
    static Path locatePayaraMicroJar() {
        URL resource = PayaraMicroServer.class.getClassLoader().getResource("fish/payara/micro/PayaraMicro.class");
        if (resource != null && "jar".equals(resource.getProtocol())) {
            try {
                URL jar = ((JarURLConnection) resource.openConnection()).getJarFileURL();
                return Path.of(jar.toURI());
            } catch (IOException | URISyntaxException | RuntimeException e) {
                throw new IllegalStateException("cannot locate the jar of " + resource, e);
            }
        }
        // A class path given only as a manifest (surefire's default) still lists the entry in java.class.path.
        for (String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry);
            String name = path.getFileName() == null ? "" : path.getFileName().toString();
            if (name.startsWith("payara-micro-") && name.endsWith(".jar") && Files.isRegularFile(path)) {
                return path;
            }
        }
        throw new IllegalStateException("fish.payara.extras:payara-micro is not on the class path"
                + " (it is a dependency of echomq-testkit; or pass PayaraMicroServer.forWar(war).payaraJar(path))");
    }
}
