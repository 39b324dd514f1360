package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.reliability.ReliabilityChecker;
import io.echomq.reliability.ReliabilitySize;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 1, the application server itself dying: demo jobs submitted over HTTP, the Payara JVM
 * killed with SIGKILL while it works them and restarted each time. The reliability checker then
 * holds every acknowledged submission to exactly one ledger entry.
 */
@WithRealServices
class PayaraKillIT {

    private static final int JOBS = ReliabilitySize.pick(2_000, 10_000);
    private static final int KILLS = ReliabilitySize.pick(2, 6);
    private static final int BATCH = 100;
    private static final String QUEUE = "payments";

    @Test
    void killedAppServerLosesNothingAndAppliesEveryEffectOnce(ValkeyService valkey, PostgresService postgres) throws Exception {
        // A short lease, so jobs held by the killed JVM come back within seconds of the restart.
        try (E2eDeployment app = new E2eDeployment(valkey, postgres, 3,
                Map.of("ECHOMQ_WORKER_LEASE_MS", "2000", "ECHOMQ_MAINTENANCE_INTERVAL_MS", "200"));
             RedisClient redis = app.valkeyClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            List<String> acknowledged = new ArrayList<>();
            for (int b = 0; b < JOBS / BATCH; b++) {
                StringBuilder batch = new StringBuilder("[");
                for (int i = 0; i < BATCH; i++) {
                    batch.append(i == 0 ? "" : ",").append(ApiE2eIT.charge("acct-" + (i % 5), 10));
                }
                E2eHttp.Response accepted = app.submitter.post("/api/queues/payments/jobs:batch", batch.append(']').toString());
                assertThat(accepted.status()).as("%s", accepted).isEqualTo(201);
                for (JsonValue job : ApiE2eIT.jsonArray(accepted)) {
                    acknowledged.add(job.asJsonObject().getString("id"));
                }
            }

            long recoveryMs = 0;
            for (int kill = 1; kill <= KILLS; kill++) {
                awaitCompleted(queue, (long) JOBS * kill / (KILLS + 2), Duration.ofMinutes(2));
                long killed = System.nanoTime();
                app.payara.killHard();
                app.payara.restart();
                recoveryMs = Math.max(recoveryMs, ReliabilityChecker.recoveryMs(queue, QUEUE, killed, Duration.ofMinutes(2)));
            }
            ReliabilityChecker.awaitDrained(queue, QUEUE, JOBS, Duration.ofMinutes(3));

            ReliabilityChecker.check("payara-kill-9", KILLS, recoveryMs, queue, QUEUE, Jdbi.create(app.database.dataSource()),
                    acknowledged).print().assertNothingLostNothingTwice();
            assertThat(ApiE2eIT.json(app.submitter.get("/api/demo/ledger")).getJsonNumber("totalCents").longValue())
                    .as("the ledger over HTTP agrees").isEqualTo(JOBS * 10L);
        }
    }

    private static void awaitCompleted(QueueClient queue, long target, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (queue.stats(QUEUE).completed() < target) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fewer than " + target + " jobs completed within " + timeout);
            }
            Thread.sleep(50);
        }
    }
}
