package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.demo.LedgerSummary;
import io.echomq.effect.Migrations;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.standalone.StandaloneWorker;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;

/**
 * The guarantee under real process death, in both effect modes: a standalone worker JVM runs
 * the demo jobs and is killed with SIGKILL at random moments, then restarted, again and again.
 * At the end every job is completed and effected exactly once.
 */
@WithRealServices
class ProcessKillTest {

    private static final int KILLS = 8;
    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration DEADLINE = Duration.ofMinutes(4);

    /** One transaction per job, and batches of 50 in one transaction (more jobs: it drains faster). */
    @ParameterizedTest(name = "batch size {0}, {1} jobs")
    @CsvSource({"1, 2000", "50, 20000"})
    void killedWorkerProcessesLoseNothingAndApplyEveryEffectOnce(int batchSize, int jobs, ValkeyService valkey,
            PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("kill");
        Migrations.migrate(database.dataSource());
        String queueName = "kill-" + ProcessHandle.current().pid() + "-batch-" + batchSize;
        Path logs = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "process-kill"));
        long seed = System.nanoTime();
        Random random = new Random(seed);

        try (RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            for (int from = 0; from < jobs; from += QueueClient.MAX_BATCH_JOBS) {
                List<NewJob> chunk = new ArrayList<>();
                for (int i = from; i < Math.min(jobs, from + QueueClient.MAX_BATCH_JOBS); i++) {
                    chunk.add(NewJob.of("{\"account\":\"acct-" + (i % 10) + "\",\"amountCents\":100}").withMaxAttempts(50));
                }
                queue.enqueueBatch(queueName, chunk);
            }

            int kills = 0;
            int runs = 0;
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            List<Path> outputs = new ArrayList<>();
            while (queue.stats(queueName).completed() < jobs && System.nanoTime() < deadline) {
                Path output = logs.resolve(queueName + "-run-" + (++runs) + ".log");
                outputs.add(output);
                Process worker = startWorker(valkey, database, queueName, batchSize, output);
                if (kills < KILLS) {
                    // Kill while it works: after it started draining, at a random moment.
                    awaitLine(output, "event=started", deadline);
                    Thread.sleep(50 + random.nextInt(600));
                    worker.destroyForcibly();   // SIGKILL: no shutdown hook, no goodbye
                    worker.waitFor(10, TimeUnit.SECONDS);
                    kills++;
                } else {
                    awaitAllCompleted(queue, queueName, jobs, deadline);
                    worker.destroy();
                    worker.waitFor(20, TimeUnit.SECONDS);
                }
            }

            QueueStats stats = queue.stats(queueName);
            LedgerSummary ledger = LedgerSummary.of(Jdbi.create(database.dataSource()), queueName);
            long lost = jobs - ledger.distinctJobs();
            long deliveries = deliveries(redis, queueName, jobs);
            long skipped = countLines(outputs, "event=skipped");
            System.out.printf("batch_size=%d jobs=%d kills=%d lost=%d duplicates=%d deliveries=%d skipped_as_applied=%d (seed %d)%n",
                    batchSize, jobs, kills, lost, ledger.duplicates(), deliveries, skipped, seed);

            assertThat(kills).isEqualTo(KILLS);
            assertThat(stats.completed()).as("every job completed").isEqualTo(jobs);
            assertThat(lost).as("lost").isZero();
            assertThat(ledger.duplicates()).as("duplicate effects").isZero();
            assertThat(ledger.entries()).isEqualTo(jobs);
            assertThat(ledger.totalCents()).isEqualTo(jobs * 100L);
            assertThat(deliveries).isGreaterThanOrEqualTo(jobs);
        }
    }

    private static Process startWorker(ValkeyService valkey, PostgresService.Database database, String queueName, int batchSize,
            Path output)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), StandaloneWorker.class.getName())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().put("ECHOMQ_VALKEY_URL", valkey.url());
        builder.environment().put("ECHOMQ_JDBC_URL", database.jdbcUrl());
        builder.environment().put("ECHOMQ_JDBC_USER", database.user());
        builder.environment().put("ECHOMQ_JDBC_PASSWORD", database.password() == null ? "" : database.password());
        builder.environment().put("ECHOMQ_QUEUE", queueName);
        builder.environment().put("ECHOMQ_CONCURRENCY", "4");
        builder.environment().put("ECHOMQ_BATCH_SIZE", Integer.toString(batchSize));
        builder.environment().put("ECHOMQ_LEASE_MS", Long.toString(LEASE.toMillis()));
        builder.environment().put("ECHOMQ_MAINTENANCE_INTERVAL_MS", "100");
        return builder.start();
    }

    private static void awaitLine(Path output, String marker, long deadline) throws IOException, InterruptedException {
        while (countLines(List.of(output), marker) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    private static void awaitAllCompleted(QueueClient queue, String queueName, int jobs, long deadline) throws InterruptedException {
        while (queue.stats(queueName).completed() < jobs && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    /** Deliveries are the attempts minted across all jobs: each claim minted one. */
    private static long deliveries(RedisClient redis, String queueName, int jobs) {
        QueueKeys keys = new QueueKeys(queueName);
        List<Response<String>> attempts = new ArrayList<>();
        try (Pipeline p = redis.pipelined()) {
            for (int id = 1; id <= jobs; id++) {
                attempts.add(p.hget(keys.job(Integer.toString(id)), "attempts"));
            }
            p.sync();
        }
        return attempts.stream().mapToLong(r -> Long.parseLong(r.get())).sum();
    }

    private static long countLines(List<Path> files, String marker) throws IOException {
        long count = 0;
        for (Path file : files) {
            try (var lines = Files.lines(file)) {
                count += lines.filter(l -> l.contains(marker)).count();
            }
        }
        return count;
    }
}
