package io.echomq.testkit.services;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** One server (or setup command) we started: its log, and how to stop it without leaving it behind. */
public final class ChildProcess {

    /** Our record of the process id, read by {@link LeftoverServers} after an aborted run. */
    public static final String PID_FILE = "server.pid";

    /**
     * The signal that shuts the server down cleanly and quickly. PostgreSQL needs INT ("fast"
     * shutdown): TERM is its "smart" shutdown, which waits for every client to disconnect.
     */
    public enum StopSignal { TERM, INT }

    private static final Duration GRACE = Duration.ofSeconds(10);

    private final String name;
    private final Process process;
    private final Path log;
    private final StopSignal stopSignal;

    private ChildProcess(String name, Process process, Path log, StopSignal stopSignal) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stopSignal = stopSignal;
    }

    /**
     * Starts {@code command} in {@code directory} with stdout and stderr appended to {@code log}.
     * The process dies with the JVM where the platform allows it.
     */
    public static ChildProcess start(String name, List<String> command, Path directory, Path log,
                              StopSignal stopSignal, Optional<ChildProcessLauncher.OsUser> osUser) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(ChildProcessLauncher.wrap(command, stopSignal, osUser))
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
        Process process = ChildProcessLauncher.start(builder);
        ChildProcess child = new ChildProcess(name, process, log, stopSignal);
        ChildProcessLauncher.register(child);
        Files.writeString(directory.resolve(PID_FILE), Long.toString(process.pid()));
        return child;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, as a crash would; returns once the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        ChildProcessLauncher.unregister(this);
    }

    /** Waits for a short-lived command (initdb); returns its exit code, or fails after {@code timeout}. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            stop();
            throw new IllegalStateException(name + " did not finish within " + timeout + "\n" + logTail());
        }
        ChildProcessLauncher.unregister(this);
        return process.exitValue();
    }

    /**
     * Stops a server that did not come up and says why: another process won the race for the
     * port (the caller picks another), or the original failure.
     */
    public RuntimeException stopAfterFailedStart(RuntimeException failure) throws FreePort.PortTaken {
        stop();
        String tail = logTail();
        if (FreePort.logSaysPortTaken(tail)) {
            throw new FreePort.PortTaken(tail);
        }
        return failure;
    }

    /** SIGKILL (kill -9), and wait until the process is gone: a crash, for tests of what survives one. */
    void killHard() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ChildProcessLauncher.unregister(this);
        }
    }

    /** Signal, wait, then kill: a server that ignores the polite request must not hang the build. */
    public void stop() {
        try {
            if (process.isAlive()) {
                signalStop();
                if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    TestkitConsole.info(name + " (pid " + process.pid() + ") ignored " + stopSignal + " for " + GRACE + "; killing it");
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            ChildProcessLauncher.unregister(this);
        }
    }

    void signalStop() {
        if (!process.isAlive()) {
            return;
        }
        if (stopSignal == StopSignal.TERM) {
            process.destroy();
            return;
        }
        // Java can only send TERM and KILL; kill(1) sends the rest.
        try {
            Process kill = new ProcessBuilder("kill", "-" + stopSignal.name(), Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                process.destroy();
            }
        } catch (IOException e) {
            process.destroy();
        } catch (InterruptedException e) {
            process.destroy();
            Thread.currentThread().interrupt();
        }
    }

    /** The end of the log, for failure messages: the reason a server did not start is nearly always there. */
    public String logTail() {
        return tail(log, 40);
    }

    static String tail(Path file, int lines) {
        if (!Files.isRegularFile(file)) {
            return "(no log at " + file + ")";
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            int size = (int) Math.min(length, 16 * 1024);
            byte[] bytes = new byte[size];
            in.seek(length - size);
            in.readFully(bytes);
            List<String> all = new String(bytes, StandardCharsets.UTF_8).lines().toList();
            List<String> last = all.subList(Math.max(0, all.size() - lines), all.size());
            return "--- last lines of " + file + " ---\n" + String.join("\n", last);
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private static java.io.File nullDevice() {
        return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
