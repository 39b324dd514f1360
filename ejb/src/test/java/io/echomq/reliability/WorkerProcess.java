package io.echomq.reliability;

import static org.awaitility.Awaitility.await;

import io.echomq.standalone.StandaloneWorker;
import io.echomq.testkit.PostgresService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A standalone worker JVM ({@link StandaloneWorker}) as a child process that tests can signal by
 * PID: SIGKILL, SIGTERM, SIGSTOP and SIGCONT. Its event lines go to its own output file.
 *
 * <pre>{@code
 * try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, Map.of("ECHOMQ_WORKER_LEASE_MS", "1000"), output)) {
 *     worker.awaitLine("event=started", Duration.ofSeconds(30));
 *     worker.pause();   // SIGSTOP: a zombie holding its leases
 * }
 * }</pre>
 */
public final class WorkerProcess implements AutoCloseable {

    private final Process process;
    private final Path output;

    private WorkerProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** The settings' entry that names the handler class the worker runs: passed as its argument, not in its environment. */
    public static final String HANDLER = "handler";

    /**
     * @param settings environment on top of the connection settings, e.g. {@code ECHOMQ_WORKER_CONCURRENCY},
     *                 {@code ECHOMQ_WORKER_LEASE_MS}, {@link WorkerProcess#HANDLER}
     */
    public static WorkerProcess start(String valkeyUrl, PostgresService.Database database, String queueName,
                                      Map<String, String> settings, Path output) throws IOException {
        return start(List.of(), valkeyUrl, database, queueName, settings, output);
    }

    /** @param wrapper a command the JVM runs under, e.g. {@code faketime -f +1h} */
    public static WorkerProcess start(List<String> wrapper, String valkeyUrl, PostgresService.Database database, String queueName,
                                      Map<String, String> settings, Path output) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), StandaloneWorker.class.getName()));
        if (settings.containsKey(HANDLER)) {
            command.add(settings.get(HANDLER));
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        Map<String, String> env = new HashMap<>(Map.of(
                "ECHOMQ_VALKEY_URL", valkeyUrl,
                "ECHOMQ_JDBC_URL", database.jdbcUrl(),
                "ECHOMQ_JDBC_USER", database.user(),
                "ECHOMQ_JDBC_PASSWORD", database.password() == null ? "" : database.password(),
                "ECHOMQ_QUEUES", queueName,
                "ECHOMQ_WORKER_CONCURRENCY", "4",
                "ECHOMQ_MAINTENANCE_INTERVAL_MS", "100"));
        env.putAll(settings);
        env.remove(HANDLER);
        builder.environment().putAll(env);
        return new WorkerProcess(builder.start(), output);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The worker JVM: the process itself, or under a wrapper that forks (faketime), its descendant. */
    public java.util.Optional<ProcessHandle> jvm() {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(process.toHandle()), process.descendants())
                .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false))
                .findFirst();
    }

    /** SIGKILL: no shutdown hook, no goodbye. Returns once the process is gone. */
    public void killHard() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGTERM: the worker's orderly stop. Returns whether it exited within {@code grace}. */
    public boolean terminate(Duration grace) throws InterruptedException {
        // A wrapper (faketime) does not pass SIGTERM on: the JVM gets it directly.
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        return process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** SIGSTOP: the JVM freezes with its leases, connections and open transactions, as a long GC pause would. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT: the frozen JVM carries on as if nothing happened (a zombie, if its leases expired meanwhile). */
    public void resume() {
        signal("CONT");
    }

    /** Waits for the process to die by itself (a handler that halts the JVM). */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exit status of a worker that has exited. */
    public int exitValue() {
        return process.exitValue();
    }

    /** Waits until the output has a line containing {@code marker}. */
    public void awaitLine(String marker, Duration timeout) {
        try {
            await("worker pid " + pid() + " prints \"" + marker + "\" (output in " + output + ")").atMost(timeout)
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).until(() -> {
                        if (countLines(List.of(output), marker) > 0) {
                            return true;
                        }
                        if (!process.isAlive()) {
                            throw new AssertionError("worker pid " + pid() + " exited without printing \"" + marker + "\"; output in " + output);
                        }
                        return false;
                    });
        } catch (ConditionTimeoutException e) {
            appendThreadDump();
            throw e;
        }
    }

    /**
     * Appends the worker JVM's threads to its output: a worker that never printed its line (once,
     * under faketime, stuck after Flyway connected) leaves what it was waiting on to read.
     */
    private void appendThreadDump() {
        jvm().ifPresent(java -> {
            try {
                Process jcmd = new ProcessBuilder("jcmd", Long.toString(java.pid()), "Thread.print")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
                if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
                    jcmd.destroyForcibly();
                }
            } catch (IOException e) {
                // No jcmd on this machine: the timeout's own message stands.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Lines containing {@code marker} across several workers' outputs (e.g. {@code event=skipped}). */
    public static long countLines(List<Path> outputs, String marker) {
        long count = 0;
        for (Path file : outputs) {
            try (var lines = Files.lines(file)) {
                count += lines.filter(l -> l.contains(marker)).count();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return count;
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops the worker if it still runs (resuming it first, since a stopped JVM cannot act on SIGTERM). */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            signal("CONT");
            if (!terminate(Duration.ofSeconds(15))) {
                killHard();
            }
        }
    }
}
