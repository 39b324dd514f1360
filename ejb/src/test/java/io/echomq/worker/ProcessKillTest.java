package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Submissions;
import io.echomq.demo.LedgerSummary;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.Migrations;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.reliability.ReliabilityChecker;
import io.echomq.reliability.WorkerProcess;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.RedisClient;

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

    /**
     * One transaction per job, and batches of 50 in one transaction (more jobs: they drain
     * faster). At most 10,000: the worker's retention keeps that many completed jobs, and the
     * checker reads every job's final state.
     */
    @ParameterizedTest(name = "batch size {0}, {1} jobs")
    @CsvSource({"1, 2000", "50, 10000"})
    void killedWorkerProcessesLoseNothingAndApplyEveryEffectOnce(int batchSize, int jobs, ValkeyService valkey,
            PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("kill");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        String queueName = "kill-" + ProcessHandle.current().pid() + "-batch-" + batchSize;
        Path logs = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "process-kill"));
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Map<String, String> settings = Map.of("ECHOMQ_WORKER_LEASE_MS", Long.toString(LEASE.toMillis()),
                "ECHOMQ_WORKER_BATCH_SIZE", Integer.toString(batchSize));

        try (RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            List<String> ids = new ArrayList<>();
            for (int from = 0; from < jobs; from += Submissions.MAX_BATCH_JOBS) {
                List<NewJob> chunk = new ArrayList<>();
                for (int i = from; i < Math.min(jobs, from + Submissions.MAX_BATCH_JOBS); i++) {
                    chunk.add(NewJob.of("{\"account\":\"acct-" + (i % 10) + "\",\"amountCents\":100}").withMaxAttempts(50));
                }
                queue.submissions().enqueueBatch(queueName, chunk).forEach(job -> ids.add(job.id()));
            }

            int kills = 0;
            int runs = 0;
            List<Path> outputs = new ArrayList<>();
            while (kills < KILLS) {
                Path output = logs.resolve(queueName + "-run-" + (++runs) + ".log");
                outputs.add(output);
                try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, settings, output)) {
                    // Kill while it works: after it started draining, at a random moment.
                    worker.awaitLine("event=started", DEADLINE);
                    Thread.sleep(50 + random.nextInt(600));
                    worker.killHard();   // SIGKILL: no shutdown hook, no goodbye
                    kills++;
                }
            }
            Path output = logs.resolve(queueName + "-run-" + (++runs) + ".log");
            outputs.add(output);
            try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, settings, output)) {
                ReliabilityChecker.awaitDrained(queue, queueName, jobs, DEADLINE);
            }

            LedgerSummary ledger = LedgerSummary.of(Jdbi.create(database.dataSource()), queueName);
            ReliabilityChecker.check(batchSize == 1 ? "worker-kill-9" : "worker-kill-9-batched", kills, 0, queue, queueName, Jdbi.create(database.dataSource()), ids)
                    .with("batch_size", batchSize)
                    .with("skipped_as_applied", WorkerProcess.countLines(outputs, "event=skipped"))
                    .with("seed", seed)
                    .print()
                    .assertNothingLostNothingTwice();
            assertThat(ledger.entries()).isEqualTo(jobs);
            assertThat(ledger.totalCents()).isEqualTo(jobs * 100L);
        }
    }
}
