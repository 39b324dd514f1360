package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Waiting for replicas before acknowledging a submission, on one server (the test server has no
 * replica): the wait cannot be met, so the submission is not acknowledged, and the message says
 * why and what to do. With no wait the primary's word is enough.
 */
@WithRealServices
class ReplicaWaitTest {

    @Test
    void aSubmissionNoReplicaConfirmsIsNotAcknowledged(ValkeyService valkey) {
        try (RedisClient redis = valkey.newClient()) {
            QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT, new ReplicaWait(1, Duration.ofMillis(50)));

            assertThatThrownBy(() -> client.submissions().enqueue(queue(), NewJob.of("{}").withIdempotencyKey("order-1")))
                    .isInstanceOf(QueueUnavailableException.class)
                    .hasMessageContaining("only 0 of 1 replicas confirmed it within 50 ms")
                    .hasMessageContaining("resubmit with the same idempotency key");
        }
    }

    @Test
    void withoutWaitingThePrimaryAcknowledges(ValkeyService valkey) {
        try (RedisClient redis = valkey.newClient()) {
            QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT, ReplicaWait.NONE);

            assertThat(client.submissions().enqueue(queue(), NewJob.of("{}")).state()).isEqualTo(JobState.PENDING);
        }
    }

    @Test
    void onlySubmissionsWaitForReplicas(ValkeyService valkey) {
        try (RedisClient redis = valkey.newClient()) {
            String queue = queue();
            QueueClient.connect(redis, QueueSettings.DEFAULT).submissions().enqueue(queue, NewJob.of("{}"));
            QueueClient waiting = QueueClient.connect(redis, QueueSettings.DEFAULT, new ReplicaWait(1, Duration.ofMillis(50)));

            ClaimedJob job = waiting.leases().claim(queue, Duration.ofSeconds(30), 1, "w1").get(0);
            assertThat(waiting.leases().complete(job.lease())).isInstanceOf(Settlement.Completed.class);
        }
    }

    private static String queue() {
        return "replica-wait-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }
}
