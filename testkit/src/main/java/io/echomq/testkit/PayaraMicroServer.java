package io.echomq.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

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
 * Payara's own temporary files.
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

    /** What {@code --contextroot} gets unless {@link Builder#contextRoot} says otherwise. */
    public static final String DEFAULT_CONTEXT_ROOT = "echomq";
    /** The application URL whose 200 means "deployed", relative to {@link #baseUrl()}. */
    public static final String DEFAULT_READINESS_PATH = "/api/about";
    public static final Duration DEFAULT_STARTUP_TIMEOUT = ServerJvm.DEFAULT_STARTUP_TIMEOUT;

    /** HTTP on loopback only; Hazelcast (port 6900 on all interfaces, even with --nocluster) off. */
    static final List<String> PREBOOT_COMMANDS = List.of(
            "set configs.config.server-config.network-config.network-listeners.network-listener.http-listener.address=127.0.0.1",
            "set configs.config.server-config.hazelcast-config-specific-configuration.enabled=false");

    private final List<Path> archives;
    private final Path payaraJar;

    private PayaraMicroServer(Builder builder, int port, Path directory, Path payaraJar) {
        super(port, builder.contextRoot, new ServerJvm("Payara Micro", command(builder, port, directory, payaraJar), builder.env,
                directory, Optional.empty(), URI.create("http://127.0.0.1:" + port
                        + (builder.contextRoot.isEmpty() ? "" : "/" + builder.contextRoot) + builder.readinessPath),
                "SEVERE", builder.startupTimeout));
        this.archives = builder.archives;
        this.payaraJar = payaraJar;
    }

    private static List<String> command(Builder builder, int port, Path directory, Path payaraJar) {
        Path preboot = directory.resolve("preboot.asadmin");
        Path postboot = directory.resolve("postboot.asadmin");
        Path tmp = directory.resolve("tmp");
        try {
            Files.write(preboot, PREBOOT_COMMANDS, StandardCharsets.UTF_8);
            if (!builder.postBootCommands.isEmpty()) {
                Files.write(postboot, builder.postBootCommands, StandardCharsets.UTF_8);
            }
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + directory, e);
        }
        List<String> command = new ArrayList<>();
        command.add(builder.javaHome.resolve("bin").resolve("java").toString());
        // Payara's temporary runtime folder goes under our directory, never into a shared /tmp.
        command.add("-Djava.io.tmpdir=" + tmp);
        command.addAll(builder.jvmOptions);
        builder.systemProperties.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.addAll(List.of("-jar", payaraJar.toString()));
        for (Path archive : builder.archives) {
            command.addAll(List.of("--deploy", archive.toString()));
        }
        if (!builder.several) {
            command.addAll(List.of("--contextroot", builder.contextRoot.isEmpty() ? "/" : builder.contextRoot));
        }
        if (!builder.libs.isEmpty()) {
            command.addAll(List.of("--addlibs", String.join(java.io.File.pathSeparator, builder.libs.stream().map(Path::toString).toList())));
        }
        command.addAll(List.of(
                "--port", Integer.toString(port),
                "--nocluster",
                "--prebootcommandfile", preboot.toString()));
        if (!builder.postBootCommands.isEmpty()) {
            command.addAll(List.of("--postbootcommandfile", postboot.toString()));
        }
        return command;
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
    public static final class Builder {

        private final List<Path> archives;
        private final boolean several;
        private final Map<String, String> env = new LinkedHashMap<>();
        private final List<String> jvmOptions = new ArrayList<>();
        private final Map<String, String> systemProperties = new LinkedHashMap<>();
        private final List<Path> libs = new ArrayList<>();
        private final List<String> postBootCommands = new ArrayList<>();
        private String contextRoot;
        private String readinessPath = DEFAULT_READINESS_PATH;
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private int port;
        private IntSupplier freePorts = FreePort::onLoopback;
        private Path payaraJar;
        private Path javaHome = Path.of(ServerInstall.javaHome());

        private Builder(List<Path> archives, boolean several) {
            this.archives = archives.stream().map(a -> Objects.requireNonNull(a, "archive").toAbsolutePath().normalize()).toList();
            this.several = several;
            this.contextRoot = several ? contextRootOf(this.archives) : DEFAULT_CONTEXT_ROOT;
        }

        private static String contextRootOf(List<Path> archives) {
            for (int i = archives.size() - 1; i >= 0; i--) {
                String name = archives.get(i).getFileName().toString();
                if (name.endsWith(".war")) {
                    return name.substring(0, name.length() - ".war".length());
                }
            }
            return "";
        }

        /** A system property of the server's JVM ({@code -Dkey=value}), e.g. a fault hook or the adapter's settings. */
        public Builder systemProperty(String key, String value) {
            systemProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, () -> "value of " + key));
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

        /** Environment variables for the server (the application reads them through MicroProfile Config). */
        public Builder env(Map<String, String> variables) {
            variables.forEach(this::env);
            return this;
        }

        public Builder env(String name, String value) {
            env.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, () -> "value of " + name));
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

        /** The path (relative to {@link #baseUrl()}) that must answer 200 before {@link #start()} returns. */
        public Builder readinessPath(String path) {
            this.readinessPath = path.startsWith("/") ? path : "/" + path;
            return this;
        }

        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** The Payara Micro jar to run; by default the {@code payara-micro} jar on the class path. */
        public Builder payaraJar(Path jar) {
            this.payaraJar = Objects.requireNonNull(jar, "jar").toAbsolutePath().normalize();
            return this;
        }

        /** Where free ports come from; a test of the retry hands in a taken one first. */
        Builder freePorts(IntSupplier ports) {
            this.freePorts = Objects.requireNonNull(ports, "ports");
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

        /**
         * Starts the server and waits until the application answers.
         *
         * @throws IllegalStateException when the deployment failed (the message ends with the server's log)
         */
        public PayaraMicroServer start() {
            for (Path archive : archives) {
                if (!Files.isRegularFile(archive)) {
                    throw new IllegalStateException("no archive at " + archive + " (build it first: mvn -pl <module> -am package)");
                }
            }
            for (Path lib : libs) {
                if (!Files.exists(lib)) {
                    throw new IllegalStateException("no library at " + lib);
                }
            }
            Path jar = payaraJar != null ? payaraJar : locatePayaraMicroJar();
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("no Payara Micro jar at " + jar);
            }
            IntFunction<PayaraMicroServer> onPort = chosen -> new PayaraMicroServer(this, chosen,
                    ServiceDirectories.fresh("payara-" + chosen), jar);
            return port > 0 ? launchOnPort(port, onPort) : launchOnFreePort(freePorts, onPort);
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
        String jar = payaraJar.getFileName().toString();
        return jar.startsWith("payara-micro-") && jar.endsWith(".jar")
                ? jar.substring("payara-micro-".length(), jar.length() - ".jar".length())
                : "unknown";
    }

    @Override
    public String toString() {
        return "PayaraMicroServer[" + archives.stream().map(a -> a.getFileName().toString()).toList() + " at " + baseUrl() + (isRunning() ? ", pid " + pid() : "") + "]";
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
