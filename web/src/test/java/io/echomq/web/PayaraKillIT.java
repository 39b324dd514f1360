package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The guarantee with the application server itself dying: 2,000 demo jobs submitted over
 * HTTP, the Payara JVM killed with SIGKILL twice while it works them and restarted each time.
 * Every job ends completed with exactly one ledger entry.
 */
@WithRealServices
class PayaraKillIT {

    private static final int JOBS = 2_000;
    private static final int BATCH = 100;

    @Test
    void killedAppServerLosesNothingAndAppliesEveryEffectOnce(ValkeyService valkey, PostgresService postgres) throws Exception {
        // A short lease, so jobs held by the killed JVM come back within seconds of the restart.
        try (E2eDeployment app = new E2eDeployment(valkey, postgres, 3,
                Map.of("ECHOMQ_WORKER_LEASE_MS", "2000", "ECHOMQ_MAINTENANCE_INTERVAL_MS", "200"))) {
            for (int b = 0; b < JOBS / BATCH; b++) {
                StringBuilder batch = new StringBuilder("[");
                for (int i = 0; i < BATCH; i++) {
                    batch.append(i == 0 ? "" : ",").append(ApiE2eIT.charge("acct-" + (i % 5), 10));
                }
                E2eHttp.Response accepted = app.submitter.post("/api/queues/payments/jobs:batch", batch.append(']').toString());
                assertThat(accepted.status()).as("%s", accepted).isEqualTo(201);
            }

            int kills = 0;
            for (long target : new long[] {JOBS / 4, JOBS / 2}) {
                awaitCompleted(app, target, Duration.ofMinutes(2));
                app.payara.killHard();
                kills++;
                app.payara.restart();
            }
            awaitCompleted(app, JOBS, Duration.ofMinutes(3));

            JsonObject queue = ApiE2eIT.json(app.submitter.get("/api/queues/payments"));
            JsonObject ledger = ApiE2eIT.json(app.submitter.get("/api/demo/ledger"));
            long completed = queue.getJsonObject("counts").getJsonNumber("completed").longValue();
            long lost = JOBS - ledger.getJsonNumber("distinctJobs").longValue();
            long duplicates = ledger.getJsonNumber("duplicates").longValue();
            System.out.printf("payara-kill: jobs=%d kills=%d completed=%d lost=%d duplicates=%d%n",
                    JOBS, kills, completed, lost, duplicates);

            assertThat(completed).isEqualTo(JOBS);
            assertThat(lost).as("lost").isZero();
            assertThat(duplicates).as("duplicates").isZero();
            assertThat(ledger.getJsonNumber("totalCents").longValue()).isEqualTo(JOBS * 10L);
        }
    }

    private static void awaitCompleted(E2eDeployment app, long target, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            E2eHttp.Response queue = app.submitter.get("/api/queues/payments");
            if (queue.status() == 200
                    && ApiE2eIT.json(queue).getJsonObject("counts").getJsonNumber("completed").longValue() >= target) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("fewer than " + target + " jobs completed within " + timeout);
    }
}
