package io.echomq.testkit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

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
 * (180 s) fails the start with the end of the log; the server is then killed.
 *
 * <p>The runtime is the {@code fish.payara.extras:payara-micro} jar on the class path (a dependency
 * of this module), run with {@code --nocluster} and the two preboot commands that bind HTTP to
 * 127.0.0.1 and switch Hazelcast off. Its files live in
 * {@code ${java.io.tmpdir}/echomq-services/payara-<port>/} (the module's {@code target/} under
 * surefire and failsafe): {@code payara.log} (appended to across restarts), the preboot file and
 * Payara's own temporary files.
 *
 * <p>The child's environment is the test JVM's without any {@code ECHOMQ_*} variable (a developer's
 * shell settings must not leak into a test), plus the variables given to {@link Builder#env}.
 *
 * <p>A server never outlives the test JVM: a shutdown hook stops it, and on Linux the kernel
 * signals it if the JVM is killed outright ({@code setpriv --pdeathsig}).
 */
public final class PayaraMicroServer implements AutoCloseable {

    /** What {@code --contextroot} gets unless {@link Builder#contextRoot} says otherwise. */
    public static final String DEFAULT_CONTEXT_ROOT = "echomq";
    /** The application URL whose 200 means "deployed", relative to {@link #baseUrl()}. */
    public static final String DEFAULT_READINESS_PATH = "/api/about";
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(180);

    /** HTTP on loopback only; Hazelcast (port 6900 on all interfaces, even with --nocluster) off. */
    static final List<String> PREBOOT_COMMANDS = List.of(
            "set configs.config.server-config.network-config.network-listeners.network-listener.http-listener.address=127.0.0.1",
            "set configs.config.server-config.hazelcast-config-specific-configuration.enabled=false");

    private static final String LOOPBACK = "127.0.0.1";
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(500);
    private static final int TAIL_LINES = 60;
    private static final int SEVERE_LINES = 25;

    private static final Set<PayaraMicroServer> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(PayaraMicroServer::stopAllRunning, "echomq-testkit-stop-payara"));
    }

    private final Path war;
    private final Path payaraJar;
    private final Map<String, String> env;
    private final List<String> jvmOptions;
    private final String contextRoot;
    private final String readinessPath;
    private final Duration startupTimeout;
    private final int port;
    private final Path directory;
    private final Path logFile;
    private final HttpClient http;
    private Process process;

    private PayaraMicroServer(Builder builder, int port, Path directory, Path payaraJar) {
        this.war = builder.war;
        this.payaraJar = payaraJar;
        this.env = Map.copyOf(builder.env);
        this.jvmOptions = List.copyOf(builder.jvmOptions);
        this.contextRoot = builder.contextRoot;
        this.readinessPath = builder.readinessPath;
        this.startupTimeout = builder.startupTimeout;
        this.port = port;
        this.directory = directory;
        this.logFile = directory.resolve("payara.log");
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
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
            server.launch();
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

    /** E.g. {@code http://127.0.0.1:41234/echomq}, without a trailing slash. */
    public String baseUrl() {
        return "http://" + LOOPBACK + ":" + port + (contextRoot.isEmpty() ? "" : "/" + contextRoot);
    }

    /** {@link #baseUrl()} plus {@code path} (with or without a leading slash). */
    public URI uri(String path) {
        return URI.create(baseUrl() + (path.startsWith("/") ? path : "/" + path));
    }

    public int port() {
        return port;
    }

    /** The process id of the server JVM (of the latest start, after a {@link #restart()}). */
    public synchronized long pid() {
        return process.pid();
    }

    /** Payara's console output, all starts of this server appended. */
    public Path logFile() {
        return logFile;
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** SIGKILL, as a crash would: no shutdown, no undeploy. Returns once the process is gone. */
    public synchronized void killHard() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        awaitExit(process, Duration.ofSeconds(30));
        RUNNING.remove(this);
    }

    /** SIGTERM (an orderly shutdown with undeploy), then SIGKILL after 30 s. Returns once the process is gone. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        if (process.isAlive()) {
            process.destroy();
            if (!awaitExit(process, STOP_GRACE)) {
                appendToLog("=== echomq-testkit: no exit within " + STOP_GRACE + " of SIGTERM; killing pid " + process.pid());
                process.destroyForcibly();
                awaitExit(process, Duration.ofSeconds(30));
            }
        }
        RUNNING.remove(this);
    }

    /**
     * Stops the server if it runs (SIGTERM), then starts it again on the same port with the same
     * environment and waits until the application answers, as {@link Builder#start()} does.
     * After {@link #killHard()} this is the recovery of a crashed node.
     */
    public synchronized void restart() {
        stop();
        launch();
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "PayaraMicroServer[" + war.getFileName() + " at " + baseUrl()
                + (process != null ? ", pid " + process.pid() : "") + "]";
    }

    // ------------------------------------------------------------------------------------------

    private synchronized void launch() {
        Path preboot = directory.resolve("preboot.asadmin");
        Path tmp = directory.resolve("tmp");
        long logStart;
        try {
            Files.write(preboot, PREBOOT_COMMANDS, StandardCharsets.UTF_8);
            Files.createDirectories(tmp);
            appendToLog("=== echomq-testkit: starting Payara Micro on " + baseUrl() + " at " + Instant.now());
            logStart = Files.size(logFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + directory, e);
        }

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Payara's temporary runtime folder goes under our directory, never into a shared /tmp.
        command.add("-Djava.io.tmpdir=" + tmp);
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-jar", payaraJar.toString(),
                "--deploy", war.toString(),
                "--contextroot", contextRoot.isEmpty() ? "/" : contextRoot,
                "--port", Integer.toString(port),
                "--nocluster",
                "--prebootcommandfile", preboot.toString()));

        ProcessBuilder builder = new ProcessBuilder(ChildProcessLauncher.wrap(command, ChildProcess.StopSignal.TERM, Optional.empty()))
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("ECHOMQ_"));
        environment.putAll(env);
        try {
            process = ChildProcessLauncher.start(builder);
            // LeftoverServers stops this JVM in a later run if the test JVM died without stopping it.
            Files.writeString(directory.resolve(ChildProcess.PID_FILE), Long.toString(process.pid()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start Payara Micro: " + command, e);
        }
        RUNNING.add(this);
        awaitApplication(logStart);
    }

    /** Polls the readiness URL; the log's SEVERE lines and the process's death end the wait early. */
    private void awaitApplication(long logStart) {
        long started = System.nanoTime();
        long deadline = started + startupTimeout.toNanos();
        LogScanner severe = new LogScanner(logFile, logStart, "SEVERE");
        URI readiness = uri(readinessPath);
        String lastAnswer = "no answer yet";
        while (true) {
            if (!process.isAlive()) {
                throw failedStart("Payara Micro exited with status " + process.exitValue() + " during start-up", logStart);
            }
            if (severe.found()) {
                throw failedStart("Payara Micro logged SEVERE during start-up (a failed deployment still logs \"Deployed\")", logStart);
            }
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(readiness).timeout(Duration.ofSeconds(5)).GET().build(),
                        HttpResponse.BodyHandlers.discarding());
                lastAnswer = "HTTP " + response.statusCode();
                if (response.statusCode() == 200) {
                    // The application answers: make sure nothing SEVERE was logged on the way there.
                    if (severe.found()) {
                        throw failedStart("Payara Micro logged SEVERE during start-up (a failed deployment still logs \"Deployed\")", logStart);
                    }
                    TestkitConsole.info("Payara Micro: " + war.getFileName() + " answers at " + baseUrl() + " (pid " + process.pid()
                            + ") [ready after " + (System.nanoTime() - started) / 1_000_000 + " ms; log " + logFile + "]");
                    return;
                }
            } catch (IOException e) {
                lastAnswer = e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killHard();
                throw new IllegalStateException("interrupted while waiting for Payara Micro at " + readiness, e);
            }
            if (System.nanoTime() > deadline) {
                throw failedStart(readiness + " did not answer 200 within " + startupTimeout + " (last: " + lastAnswer + ")", logStart);
            }
            sleep(POLL);
        }
    }

    private IllegalStateException failedStart(String reason, long logStart) {
        if (process.isAlive()) {
            process.destroyForcibly();
            awaitExit(process, Duration.ofSeconds(30));
        }
        RUNNING.remove(this);
        return new IllegalStateException(reason + "; WAR " + war + ", log " + logFile + "\n" + logExcerpt(logStart));
    }

    /**
     * For failure messages: the first SEVERE entry of this start (the cause; later ones are its
     * consequences) and the last lines written.
     */
    private String logExcerpt(long from) {
        List<String> lines;
        try (RandomAccessFile in = new RandomAccessFile(logFile.toFile(), "r")) {
            long start = Math.max(from, in.length() - 4 * 1024 * 1024);
            byte[] bytes = new byte[(int) (in.length() - start)];
            in.seek(start);
            in.readFully(bytes);
            lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            return "(cannot read " + logFile + ": " + e + ")";
        }
        StringBuilder excerpt = new StringBuilder();
        int tailStart = Math.max(0, lines.size() - TAIL_LINES);
        for (int i = 0; i < tailStart; i++) {
            if (lines.get(i).contains("SEVERE")) {
                excerpt.append("--- first SEVERE entry in ").append(logFile).append(" ---\n")
                        .append(String.join("\n", lines.subList(i, Math.min(i + SEVERE_LINES, tailStart)))).append('\n');
                break;
            }
        }
        return excerpt.append("--- last lines of ").append(logFile).append(" ---\n")
                .append(String.join("\n", lines.subList(tailStart, lines.size()))).toString();
    }

    private void appendToLog(String line) {
        try {
            Files.writeString(logFile, line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + logFile, e);
        }
    }

    private static boolean awaitExit(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Payara Micro", e);
        }
    }

    private static void stopAllRunning() {
        List<PayaraMicroServer> servers = new ArrayList<>(RUNNING);
        // Signal all first so they shut down in parallel, then wait for each.
        servers.forEach(server -> {
            Process process = server.process;
            if (process != null) {
                process.destroy();
            }
        });
        for (PayaraMicroServer server : servers) {
            Process process = server.process;
            if (process != null && !awaitExit(process, Duration.ofSeconds(10))) {
                process.destroyForcibly();
            }
        }
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

    /** Looks for a word in what a file gained since an offset, reading only the new bytes each time. */
    private static final class LogScanner {

        private final Path file;
        private final String word;
        private long position;
        private String carry = "";

        LogScanner(Path file, long position, String word) {
            this.file = file;
            this.position = position;
            this.word = word;
        }

        boolean found() {
            try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
                long length = in.length();
                if (length <= position) {
                    return false;
                }
                byte[] bytes = new byte[(int) Math.min(length - position, 8 * 1024 * 1024)];
                in.seek(position);
                in.readFully(bytes);
                position += bytes.length;
                // ISO-8859-1 maps bytes 1:1, so an ASCII word is found even across a split UTF-8 sequence.
                String text = carry + new String(bytes, StandardCharsets.ISO_8859_1);
                if (text.contains(word)) {
                    return true;
                }
                carry = text.substring(Math.max(0, text.length() - word.length()));
                return false;
            } catch (IOException e) {
                return false;
            }
        }
    }
}
