package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.reliability.ReliabilityChecker;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.faults.CrashableValkey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 9: Valkey at {@code maxmemory} with {@code noeviction}. Submissions over HTTP are
 * refused with 503, an {@code application/problem+json} body and {@code Retry-After}, never
 * with a 500, and nothing refused is enqueued; once memory is freed, every acknowledged job is
 * applied once. The server is this test's own, so its memory limit touches no other test.
 */
@WithRealServices
class ValkeyFullIT {

    private static final String QUEUE = "payments";
    private static final String BATCHES = "/api/queues/payments/jobs:batch";
    /** Batches, since every request pays for checking its password (PBKDF2); a batch is accepted whole or not at all. */
    private static final int BATCH = 20;
    /** Enough refusals in a row to be sure the server is full, not briefly busy. */
    private static final int REFUSALS = 10;
    private static final int MAX_SUBMISSIONS = 1_000;

    @Test
    void aFullValkeyRefusesSubmissionsWith503AndLosesNothingAcknowledged(PostgresService postgres) throws Exception {
        try (CrashableValkey valkey = CrashableValkey.start();
             E2eDeployment app = new E2eDeployment(valkey, postgres, 0, Map.of());
             RedisClient redis = app.valkeyClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            assertThat(app.admin.post("/api/queues/payments/pause", null).status()).isEqualTo(200);
            long used = Long.parseLong(redis.info("memory").lines().filter(l -> l.startsWith("used_memory:"))
                    .findFirst().orElseThrow().substring("used_memory:".length()).trim());
            redis.configSet("maxmemory", Long.toString(used + 2 * 1024 * 1024));

            String padded = "{\"payload\":{\"account\":\"full\",\"amountCents\":1,\"pad\":\"" + "x".repeat(2_000) + "\"}}";
            String batch = "[" + (padded + ",").repeat(BATCH - 1) + padded + "]";
            List<String> acknowledged = new ArrayList<>();
            int refusedInARow = 0;
            int refused = 0;
            E2eHttp.Response lastRefusal = null;
            for (int i = 0; i < MAX_SUBMISSIONS && refusedInARow < REFUSALS; i++) {
                E2eHttp.Response answer = app.submitter.post(BATCHES, batch);
                if (answer.status() == 201) {
                    ApiE2eIT.jsonArray(answer).forEach(job -> acknowledged.add(job.asJsonObject().getString("id")));
                    refusedInARow = 0;
                } else {
                    assertThat(answer.status()).as("a full Valkey is a 503, never another error: %s", answer).isEqualTo(503);
                    refusedInARow++;
                    refused++;
                    lastRefusal = answer;
                }
            }
            assertThat(lastRefusal).as("Valkey filled up within %d batches", MAX_SUBMISSIONS).isNotNull();
            assertThat(lastRefusal.header("Content-Type")).hasValue("application/problem+json");
            assertThat(lastRefusal.header("Retry-After")).hasValue("1");
            assertThat(ApiE2eIT.json(lastRefusal).getString("detail")).contains("out of memory");
            assertThat(queue.reads().stats(QUEUE).total()).as("refused submissions enqueued nothing").isEqualTo(acknowledged.size());

            long freed = System.nanoTime();
            redis.configSet("maxmemory", "0");
            assertThat(app.admin.post("/api/queues/payments/resume", null).status()).isEqualTo(200);
            long recoveryMs = ReliabilityChecker.recoveryMs(queue, QUEUE, freed, Duration.ofMinutes(1));
            ReliabilityChecker.awaitDrained(queue, QUEUE, acknowledged.size(), Duration.ofMinutes(3));

            ReliabilityChecker.check("valkey-maxmemory-noeviction", 1, recoveryMs, queue, QUEUE,
                            Jdbi.create(app.database.dataSource()), acknowledged)
                    .with("refused_503", refused)
                    .print()
                    .assertNothingLostNothingTwice();
        }
    }
}
