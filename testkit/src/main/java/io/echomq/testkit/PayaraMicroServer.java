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

    private final Path war;
    private final Path payaraJar;

    private PayaraMicroServer(Builder builder, int port, Path directory, Path payaraJar) {
        super(port, builder.contextRoot, new ServerJvm("Payara Micro", command(builder, port, directory, payaraJar), builder.env,
                directory, Optional.empty(), URI.create("http://127.0.0.1:" + port
                        + (builder.contextRoot.isEmpty() ? "" : "/" + builder.contextRoot) + builder.readinessPath),
                "SEVERE", builder.startupTimeout));
        this.war = builder.war;
        this.payaraJar = payaraJar;
    }

    private static List<String> command(Builder builder, int port, Path directory, Path payaraJar) {
        Path preboot = directory.resolve("preboot.asadmin");
        Path tmp = directory.resolve("tmp");
        try {
            Files.write(preboot, PREBOOT_COMMANDS, StandardCharsets.UTF_8);
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + directory, e);
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Payara's temporary runtime folder goes under our directory, never into a shared /tmp.
        command.add("-Djava.io.tmpdir=" + tmp);
        command.addAll(builder.jvmOptions);
        command.addAll(List.of(
                "-jar", payaraJar.toString(),
                "--deploy", builder.war.toString(),
                "--contextroot", builder.contextRoot.isEmpty() ? "/" : builder.contextRoot,
                "--port", Integer.toString(port),
                "--nocluster",
                "--prebootcommandfile", preboot.toString()));
        return command;
    }

    /** Starts describing a server for {@code war} (an existing {@code .war} file). */
    public static Builder forWar(Path war) {
        return new Builder(war);
    }

    /** How to start a server; {@link #start()} starts it. */
    public static final class Builder {

        private final Path war;
        private final Map<String, String> env = new LinkedHashMap<>();
        private final List<String> jvmOptions = new ArrayList<>();
        private String contextRoot = DEFAULT_CONTEXT_ROOT;
        private String readinessPath = DEFAULT_READINESS_PATH;
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private int port;
        private Path payaraJar;

        private Builder(Path war) {
            this.war = Objects.requireNonNull(war, "war").toAbsolutePath().normalize();
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

        public Builder contextRoot(String contextRoot) {
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

        /**
         * Starts the server and waits until the application answers.
         *
         * @throws IllegalStateException when the deployment failed (the message ends with the server's log)
         */
        public PayaraMicroServer start() {
            if (!Files.isRegularFile(war)) {
                throw new IllegalStateException("no WAR at " + war + " (build it first: mvn -pl web package)");
            }
            Path jar = payaraJar != null ? payaraJar : locatePayaraMicroJar();
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("no Payara Micro jar at " + jar);
            }
            int chosenPort = port > 0 ? port : FreePort.onLoopback();
            Path directory = ServiceDirectories.fresh("payara-" + chosenPort);
            PayaraMicroServer server = new PayaraMicroServer(this, chosenPort, directory, jar);
            server.jvm.launch();
            return server;
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
        return "PayaraMicroServer[" + war.getFileName() + " at " + baseUrl() + (isRunning() ? ", pid " + pid() : "") + "]";
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
