package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.reliability.ReliabilityChecker;
import io.echomq.reliability.Verdict;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 1, the application server itself dying: demo jobs submitted over HTTP, the server JVM
 * killed with SIGKILL while it works them and restarted each time. The reliability checker then
 * holds every acknowledged submission to exactly one ledger entry.
 */
final class ServerKills {

    /**
     * A short lease, so jobs held by the killed JVM come back within seconds of the restart;
     * batches of 10 on two runners, so that 2,000 jobs take a second or more (batches of 100 take
     * a fraction of one) and a kill lands while jobs are still being worked, without the minutes
     * one job per transaction takes on a busy disk.
     */
    static final Map<String, String> SETTINGS = Map.of("ECHOMQ_WORKER_LEASE_MS", "2000", "ECHOMQ_MAINTENANCE_INTERVAL_MS", "200",
            "ECHOMQ_WORKER_BATCH_SIZE", "10", "ECHOMQ_WORKER_CONCURRENCY", "2");

    private static final int BATCH = 100;
    private static final String QUEUE = E2eDeployment.DEMO_QUEUE;

    private ServerKills() {
    }

    /**
     * Submits {@code jobs} charges of 10 cents in batches (the queue paused meanwhile), kills the server {@code kills} times
     * while it works them (each after a further share completed), restarts it, waits for the
     * drain and returns the checker's verdict (already asserted: nothing lost, nothing twice).
     * Jobs completed on the queue before the call are counted out.
     */
    static Verdict killDuringJobs(E2eDeployment app, int jobs, int kills) throws Exception {
        try (RedisClient redis = app.valkeyClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            long completedBefore = queue.reads().stats(QUEUE).completed();
            long centsBefore = app.ledger().getJsonNumber("totalCents").longValue();
            List<String> acknowledged = new ArrayList<>();
            // Paused while submitting, so that all of them wait when the workers start: the kills land on a backlog.
            assertThat(app.admin.post("/api/queues/" + QUEUE + "/pause", null).status()).isEqualTo(200);
            for (int b = 0; b < jobs / BATCH; b++) {
                StringBuilder batch = new StringBuilder("[");
                for (int i = 0; i < BATCH; i++) {
                    batch.append(i == 0 ? "" : ",").append(ApiE2eIT.charge("acct-" + (i % 5), 10));
                }
                E2eHttp.Response accepted = app.submitter.post("/api/queues/" + QUEUE + "/jobs:batch", batch.append(']').toString());
                assertThat(accepted.status()).as("%s", accepted).isEqualTo(201);
                for (JsonValue job : ApiE2eIT.jsonArray(accepted)) {
                    acknowledged.add(job.asJsonObject().getString("id"));
                }
            }

            assertThat(app.admin.post("/api/queues/" + QUEUE + "/resume", null).status()).isEqualTo(200);

            long recoveryMs = 0;
            for (int kill = 1; kill <= kills; kill++) {
                awaitCompleted(queue, completedBefore + (long) jobs * kill / (kills + 2), Duration.ofMinutes(2));
                long killed = System.nanoTime();
                app.server.killHard();
                QueueStats left = queue.reads().stats(QUEUE);
                assertThat(left.pending() + left.delayed() + left.active())
                        .as("kill %d must hit a server with work left, not a drained queue: %s", kill, left).isPositive();
                app.server.restart();
                recoveryMs = Math.max(recoveryMs, ReliabilityChecker.recoveryMs(queue, QUEUE, killed, Duration.ofMinutes(2)));
            }
            ReliabilityChecker.awaitDrained(queue, QUEUE, completedBefore + jobs, Duration.ofMinutes(3));

            Verdict verdict = ReliabilityChecker.check(app.server.name() + "-kill-9", kills, recoveryMs, queue, QUEUE,
                    Jdbi.create(app.database.dataSource()), acknowledged).print();
            verdict.assertNothingLostNothingTwice();
            assertThat(app.ledger().getJsonNumber("totalCents").longValue() - centsBefore)
                    .as("the ledger over HTTP agrees").isEqualTo(jobs * 10L);
            return verdict;
        }
    }

    private static void awaitCompleted(QueueClient queue, long target, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (queue.reads().stats(QUEUE).completed() < target) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fewer than " + target + " jobs completed within " + timeout);
            }
            Thread.sleep(10);
        }
    }
}
