package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.faults.CrashableValkey;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * A client left talking to a server that became a replica (a failover demoted it, or the
 * address names a replica) gets {@code READONLY} for every script that writes. Nothing ran, so
 * the caller hears the queue is unavailable and may ask again once the address is right; it is
 * not a failure of the script that would read as a bug.
 */
class ReadOnlyReplicaTest {

    /** Nothing listens on this loopback port: the replica waits for its primary for ever, and refuses writes meanwhile. */
    private static final String UNREACHABLE_PRIMARY_PORT = "1";

    @Test
    void aWriteToAReadOnlyReplicaIsAnOutageThatChangedNothing() throws Exception {
        String queue = "read-only-" + ProcessHandle.current().pid();
        try (CrashableValkey replica = CrashableValkey.start("--replicaof", "127.0.0.1", UNREACHABLE_PRIMARY_PORT);
             RedisClient redis = replica.newClient()) {
            QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT);

            assertThatThrownBy(() -> client.submissions().enqueue(queue, NewJob.of("refused")))
                    .isInstanceOf(QueueUnavailableException.class)
                    .hasMessageContaining("enqueue-4.lua").hasMessageContaining("read-only replica");
            assertThatThrownBy(() -> client.submissions().enqueue(queue, NewJob.of("refused").withIdempotencyKey("k")))
                    .as("a script the client may resend is refused the same way").isInstanceOf(QueueUnavailableException.class);
            assertThatThrownBy(() -> client.admin().pause(queue)).isInstanceOf(QueueUnavailableException.class);
            assertThatThrownBy(() -> client.outboxAdmin().publishGauge("jdbc/app", 1, 1, Duration.ofSeconds(5)))
                    .as("a plain write (not a script) is refused the same way").isInstanceOf(QueueUnavailableException.class)
                    .hasMessageContaining("read-only replica");
            assertThat(client.reads().stats(queue).pending()).as("reads still answer, and nothing was written").isZero();
        }
    }
}
