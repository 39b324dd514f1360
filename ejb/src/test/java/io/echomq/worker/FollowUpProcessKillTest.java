package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.api.Job;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.Migrations;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueReads;
import io.echomq.queue.QueueSettings;
import io.echomq.reliability.ReliabilityChecker;
import io.echomq.reliability.WorkerProcess;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Follow-ups under real process death: standalone worker JVMs run demo charges that each ask for
 * a receipt (a result and a follow-up job, written in the charge's effect transaction) and are
 * killed with SIGKILL at random moments, between any commit and its acknowledgement and before
 * their relay was woken. The last worker's relay finds what the dead ones committed: in the end
 * every charge has exactly one receipt job, and no receipt exists for a charge twice.
 */
@WithRealServices
class FollowUpProcessKillTest {

    private static final int JOBS = 2_000;
    private static final int KILLS = 4;
    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration DEADLINE = Duration.ofMinutes(3);

    @Test
    void killedWorkerProcessesMakeEachChargesReceiptOnce(ValkeyService valkey, PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("followup_kill");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        Jdbi jdbi = Jdbi.create(database.dataSource());
        String queueName = "followup-kill-" + ProcessHandle.current().pid();
        Path logs = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "followup-kill"));
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Map<String, String> settings = Map.of("ECHOMQ_WORKER_LEASE_MS", Long.toString(LEASE.toMillis()));

        try (RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            List<String> ids = new ArrayList<>();
            for (int from = 0; from < JOBS; from += 500) {
                List<NewJob> chunk = new ArrayList<>();
                for (int i = from; i < Math.min(JOBS, from + 500); i++) {
                    chunk.add(NewJob.of("{\"account\":\"" + queueName + "-" + (i % 10) + "\",\"amountCents\":100,\"receipt\":true}")
                            .withMaxAttempts(50));
                }
                queue.submissions().enqueueBatch(queueName, chunk).stream().map(Enqueued::id).forEach(ids::add);
            }

            int kills = 0;
            List<Path> outputs = new ArrayList<>();
            while (kills < KILLS) {
                outputs.add(logs.resolve(queueName + "-run-" + (outputs.size() + 1) + ".log"));
                try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, settings, outputs.get(outputs.size() - 1))) {
                    // Kill while it works: once it applied a charge of its own, at a random moment after.
                    long appliedBefore = LedgerSummary.of(jdbi, queueName).entries();
                    worker.awaitLine("event=started", DEADLINE);
                    await("run " + outputs.size() + " applies a charge").atMost(DEADLINE)
                            .until(() -> LedgerSummary.of(jdbi, queueName).entries() > appliedBefore);
                    Thread.sleep(random.nextInt(300));
                    worker.killHard();   // SIGKILL: no relay woken, no acknowledgement, no goodbye
                    kills++;
                }
            }
            Map<String, String> expectedKeys = new HashMap<>();
            Map<String, List<String>> receiptKeysByCharge;
            outputs.add(logs.resolve(queueName + "-run-" + (outputs.size() + 1) + ".log"));
            try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, settings, outputs.get(outputs.size() - 1))) {
                ReliabilityChecker.awaitDrained(queue, queueName, JOBS, DEADLINE);
                for (String id : ids) {
                    JobView charge = queue.reads().job(queueName, id).orElseThrow();
                    expectedKeys.put(id, new Job(queueName, id, charge.createdAt().toEpochMilli(), 1, charge.lane(), charge.payload())
                            .followUpKey("receipt"));
                }
                // The survivor's relay sends what the killed workers committed but never relayed, at its next sweep.
                await("every charge's receipt relayed").atMost(DEADLINE)
                        .until(() -> outboxRows(jdbi) == 0 && receiptKeysByCharge(queue, queueName).size() >= JOBS);
                receiptKeysByCharge = receiptKeysByCharge(queue, queueName);
            }

            // Counted by the charge each receipt names, not by key: a receipt made twice under two keys would show here.
            long duplicates = receiptKeysByCharge.values().stream().filter(keys -> keys.size() > 1).count();
            long lost = ids.stream().filter(id -> !receiptKeysByCharge.containsKey(id)).count();
            ReliabilityChecker.check("followup-kill-9", kills, 0, queue, queueName, jdbi, ids)
                    .with("follow_ups", receiptKeysByCharge.values().stream().mapToInt(List::size).sum())
                    .with("follow_ups_lost", lost)
                    .with("follow_ups_duplicated", duplicates)
                    .with("skipped_as_applied", WorkerProcess.countLines(outputs, "event=skipped"))
                    .with("seed", seed)
                    .print()
                    .assertNothingLostNothingTwice();
            assertThat(lost).as("charges without a receipt").isZero();
            assertThat(duplicates).as("charges with more than one receipt").isZero();
            receiptKeysByCharge.forEach((charge, keys) -> assertThat(keys).as("receipt of charge " + charge)
                    .containsExactly(expectedKeys.get(charge)));
            assertThat(LedgerSummary.of(jdbi, queueName).entries()).isEqualTo(JOBS);
        }
    }

    private static long outboxRows(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.outbox").mapTo(Long.class).one());
    }

    /**
     * The receipt jobs of this queue's charges, by the charge each names: their accounts carry the
     * queue's name (other tests' charges may share the receipts queue).
     */
    private static Map<String, List<String>> receiptKeysByCharge(QueueClient queue, String queueName) {
        Map<String, List<String>> byCharge = new HashMap<>();
        Optional<String> cursor = Optional.empty();
        do {
            JobPage page = queue.reads().jobs(LedgerChargeHandler.RECEIPTS, JobState.PENDING, cursor, QueueReads.MAX_PAGE);
            for (JobView job : page.jobs()) {
                JsonObject receipt = Json.createReader(new StringReader(job.payload())).readObject();
                if (receipt.getString("account").startsWith(queueName + "-")) {
                    byCharge.computeIfAbsent(receipt.getString("chargedByJob"), id -> new ArrayList<>())
                            .add(job.idempotencyKey().orElse("none"));
                }
            }
            cursor = page.next();
        } while (cursor.isPresent());
        return byCharge;
    }
}
