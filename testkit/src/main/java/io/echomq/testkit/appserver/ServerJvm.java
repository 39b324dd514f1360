package io.echomq.testkit.appserver;

import io.echomq.testkit.services.ChildProcess;
import io.echomq.testkit.services.ChildProcessLauncher;
import io.echomq.testkit.services.FreePort;
import io.echomq.testkit.services.TestkitConsole;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URI;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What every {@link AppServer} launcher shares: one server JVM started as a child process (its
 * console appended to one log file), held until the application answers 200 on a readiness URL,
 * killed or stopped by pid, restarted with the same command.
 *
 * <p>A start fails, with the first failure entry and the end of the log, when the JVM exits, when
 * the log gains the server's failure marker (Payara's {@code SEVERE}, WildFly's {@code ERROR}),
 * or when no 200 comes within the timeout: servers log "deployed" even when the deployment
 * failed, so only an answering application proves it. When the log of the failed start says a
 * port was taken ({@link FreePort#logSaysPortTaken}), the failure is {@link FreePort.PortTaken}:
 * another process bound a port between the launcher's pick and the server's bind, and
 * {@link LaunchedAppServer#launchOnFreePort} starts it again on a new one.
 *
 * <p>When the command is a launch script that keeps running as the JVM's parent (WildFly's
 * {@code standalone.sh}), {@code jvmPidFile} names the file the script writes the JVM's pid to;
 * {@link #pid()} and {@link #killHard()} then act on that JVM, not on the script.
 *
 * <p>A server never outlives the test JVM: a shutdown hook stops it, and on Linux the kernel
 * signals it if the JVM is killed outright ({@code setpriv --pdeathsig}).
 */
final class ServerJvm {

    static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(500);
    private static final int TAIL_LINES = 60;
    private static final int FAILURE_LINES = 25;

    private static final Set<ServerJvm> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ServerJvm::stopAllRunning, "echomq-testkit-stop-app-servers"));
    }

    private final String label;
    private final List<String> command;
    private final Map<String, String> env;
    private final Path directory;
    private final Path logFile;
    private final Optional<Path> jvmPidFile;
    private final URI readiness;
    private final String failureMarker;
    private final Duration startupTimeout;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    private Process process;
    private long readyMs;

    /**
     * @param label         the server's name in messages, e.g. {@code Payara Micro}
     * @param command       the JVM (or its launch script) with its arguments
     * @param env           added to the test JVM's environment, from which every {@code ECHOMQ_*}
     *                      variable is removed first (a developer's shell must not leak into a test)
     * @param directory     the server's own directory (its working directory; the log goes there)
     * @param failureMarker a word whose appearance in the log during start-up fails the start
     */
    ServerJvm(String label, List<String> command, Map<String, String> env, Path directory, Optional<Path> jvmPidFile,
              URI readiness, String failureMarker, Duration startupTimeout) {
        this.label = label;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.directory = directory;
        this.logFile = directory.resolve("server.log");
        this.jvmPidFile = jvmPidFile;
        this.readiness = readiness;
        this.failureMarker = failureMarker;
        this.startupTimeout = startupTimeout;
    }

    Path logFile() {
        return logFile;
    }

    synchronized long readyMs() {
        return readyMs;
    }

    /** The server JVM's pid: the launched process's own, or the one its launch script wrote. */
    synchronized long pid() {
        if (jvmPidFile.isPresent()) {
            return readPid(jvmPidFile.get()).orElseThrow(() -> new IllegalStateException(
                    label + " wrote no JVM pid to " + jvmPidFile.get()));
        }
        return process.pid();
    }

    synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Starts the JVM and waits until the application answers.
     *
     * @throws FreePort.PortTaken when the server could not bind a port another process took first
     */
    synchronized void launch() throws FreePort.PortTaken {
        long logStart;
        try {
            Files.createDirectories(directory);
            jvmPidFile.ifPresent(file -> {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            appendToLog("=== echomq-testkit: starting " + label + " for " + readiness + " at " + Instant.now());
            logStart = Files.size(logFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + directory, e);
        }
        ProcessBuilder builder = new ProcessBuilder(ChildProcessLauncher.wrap(command, ChildProcess.StopSignal.TERM, Optional.empty()))
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("ECHOMQ_"));
        environment.putAll(env);
        long started = System.nanoTime();
        try {
            process = ChildProcessLauncher.start(builder);
            // LeftoverServers stops this process in a later run if the test JVM died without stopping it.
            Files.writeString(directory.resolve(ChildProcess.PID_FILE), Long.toString(process.pid()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + label + ": " + command, e);
        }
        RUNNING.add(this);
        awaitApplication(logStart, started);
    }

    /** SIGKILL of the server JVM; returns once it and its launcher are gone. */
    synchronized void killHard() {
        if (process == null) {
            return;
        }
        jvmPidFile.flatMap(ServerJvm::readPid).flatMap(ProcessHandle::of).ifPresent(jvm -> {
            jvm.destroyForcibly();
            awaitExit(jvm, Duration.ofSeconds(30));
        });
        process.destroyForcibly();
        awaitExit(process, Duration.ofSeconds(30));
        RUNNING.remove(this);
    }

    /** SIGTERM (an orderly shutdown with undeploy), then SIGKILL after 30 s. Returns once the process is gone. */
    synchronized void stop() {
        if (process == null) {
            return;
        }
        if (process.isAlive()) {
            process.destroy();
            if (!awaitExit(process, STOP_GRACE)) {
                appendToLog("=== echomq-testkit: no exit within " + STOP_GRACE + " of SIGTERM; killing pid " + process.pid());
                killHard();
            }
        }
        RUNNING.remove(this);
    }

    /** Polls the readiness URL; the failure marker in the log and the process's death end the wait early. */
    private void awaitApplication(long logStart, long started) throws FreePort.PortTaken {
        long deadline = started + startupTimeout.toNanos();
        LogScanner failure = new LogScanner(logFile, logStart, failureMarker);
        String lastAnswer = "no answer yet";
        while (true) {
            if (!process.isAlive()) {
                throw failedStart(label + " exited with status " + process.exitValue() + " during start-up", logStart);
            }
            if (failure.found()) {
                throw failedStart(label + " logged " + failureMarker + " during start-up (a failed deployment may still log \"deployed\")", logStart);
            }
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(readiness).timeout(Duration.ofSeconds(5)).GET().build(),
                        HttpResponse.BodyHandlers.discarding());
                lastAnswer = "HTTP " + response.statusCode();
                if (response.statusCode() == 200) {
                    // The application answers: make sure nothing failed on the way there.
                    if (failure.found()) {
                        throw failedStart(label + " logged " + failureMarker + " during start-up", logStart);
                    }
                    readyMs = (System.nanoTime() - started) / 1_000_000;
                    TestkitConsole.info(label + ": answers at " + readiness + " (pid " + pid() + ") [ready after "
                            + readyMs + " ms; log " + logFile + "]");
                    return;
                }
            } catch (IOException e) {
                lastAnswer = e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killHard();
                throw new IllegalStateException("interrupted while waiting for " + label + " at " + readiness, e);
            }
            if (System.nanoTime() > deadline) {
                throw failedStart(readiness + " did not answer 200 within " + startupTimeout + " (last: " + lastAnswer + ")", logStart);
            }
            sleep(POLL);
        }
    }

    private IllegalStateException failedStart(String reason, long logStart) throws FreePort.PortTaken {
        killHard();
        String log;
        try {
            log = logSince(logStart);
        } catch (IOException e) {
            return new IllegalStateException(reason + "; log " + logFile + " (cannot read it: " + e + ")", e);
        }
        if (FreePort.logSaysPortTaken(log)) {
            throw new FreePort.PortTaken(label + " could not bind a port another process took first; log " + logFile
                    + "\n" + logExcerpt(log));
        }
        return new IllegalStateException(reason + "; log " + logFile + "\n" + logExcerpt(log));
    }

    /** What this start wrote to the log (its last 4 MiB at most). */
    private String logSince(long from) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(logFile.toFile(), "r")) {
            long start = Math.max(from, in.length() - 4 * 1024 * 1024);
            byte[] bytes = new byte[(int) (in.length() - start)];
            in.seek(start);
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** For failure messages: the first failure entry of this start (the cause; later ones are its consequences) and the last lines. */
    private String logExcerpt(String log) {
        List<String> lines = log.lines().toList();
        StringBuilder excerpt = new StringBuilder();
        int tailStart = Math.max(0, lines.size() - TAIL_LINES);
        for (int i = 0; i < tailStart; i++) {
            if (lines.get(i).contains(failureMarker)) {
                excerpt.append("--- first ").append(failureMarker).append(" entry in ").append(logFile).append(" ---\n")
                        .append(String.join("\n", lines.subList(i, Math.min(i + FAILURE_LINES, tailStart)))).append('\n');
                break;
            }
        }
        return excerpt.append("--- last lines of ").append(logFile).append(" ---\n")
                .append(String.join("\n", lines.subList(tailStart, lines.size()))).toString();
    }

    void appendToLog(String line) {
        try {
            Files.writeString(logFile, line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + logFile, e);
        }
    }

    private static Optional<Long> readPid(Path file) {
        try {
            return Optional.of(Long.parseLong(Files.readString(file).strip()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
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

    private static void awaitExit(ProcessHandle process, Duration timeout) {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // Reported by the caller's next look at the process.
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a server", e);
        }
    }

    private static void stopAllRunning() {
        List<ServerJvm> servers = new ArrayList<>(RUNNING);
        // Signal all first so they shut down in parallel, then wait for each.
        servers.forEach(server -> {
            Process process = server.process;
            if (process != null) {
                process.destroy();
            }
        });
        for (ServerJvm server : servers) {
            Process process = server.process;
            if (process != null && !awaitExit(process, Duration.ofSeconds(10))) {
                process.destroyForcibly();
            }
        }
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
