package io.echomq.bench;

import io.echomq.standalone.StandaloneWorker;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.services.ValkeyCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One app server: a standalone worker JVM draining the given queues of the cluster, its events in a file. */
final class WorkerJvm implements AutoCloseable {

    private final Process process;
    private final Path output;

    private WorkerJvm(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /**
     * @param settings further engine settings ({@code echomq.queues.<q>.shards}, say), passed as
     *                 environment variables named by the keys themselves: the worker's
     *                 {@code ConfigReader.environment} looks a key up as given before its upper-case form
     */
    static WorkerJvm start(ValkeyCluster cluster, PostgresService.Database database, List<String> queues, int concurrency,
                           Map<String, String> settings, Path output) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m"));
        command.addAll(extraOptions(output));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), StandaloneWorker.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().put("ECHOMQ_VALKEY_CLUSTER_NODES", cluster.seedNodes());
        builder.environment().put("ECHOMQ_VALKEY_PASSWORD", cluster.password());
        builder.environment().put("ECHOMQ_JDBC_URL", database.jdbcUrl());
        builder.environment().put("ECHOMQ_JDBC_USER", database.user());
        builder.environment().put("ECHOMQ_JDBC_PASSWORD", database.password() == null ? "" : database.password());
        builder.environment().put("ECHOMQ_QUEUES", String.join(",", queues));
        builder.environment().put("ECHOMQ_WORKER_CONCURRENCY", Integer.toString(concurrency));
        settings.forEach(builder.environment()::put);
        return new WorkerJvm(builder.start(), output);
    }

    /**
     * {@code -Dbench.worker-jvm-options}: options for every worker JVM, space-separated, with
     * {@code {log}} standing for the worker's log file without its extension (a flight recording
     * per worker, say: {@code -XX:StartFlightRecording=filename={log}.jfr}).
     */
    private static List<String> extraOptions(Path output) {
        String options = System.getProperty("bench.worker-jvm-options", "").trim();
        String log = output.toString().replaceFirst("\\.log$", "");
        return options.isEmpty() ? List.of() : Arrays.stream(options.split("\\s+")).map(o -> o.replace("{log}", log)).toList();
    }

    long pid() {
        return process.pid();
    }

    void awaitStarted(long deadline) throws IOException, InterruptedException {
        while (lines("event=started") == 0) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("worker " + pid() + " did not start:\n" + Files.readString(output));
            }
            Thread.sleep(50);
        }
    }

    /** Jobs this instance completed (acknowledged), from its event lines. */
    long completed() throws IOException {
        return lines("event=completed");
    }

    private long lines(String marker) throws IOException {
        try (var lines = Files.lines(output)) {
            return lines.filter(l -> l.contains(marker)).count();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
