package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.ValkeyService;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

class OpenLoopTest {

    private static final int RATE = 200;
    private static final int JOBS = 400;

    /**
     * On an overloaded machine Valkey can stall past the client's read timeout. The soak's
     * producer died of the first such send, and the soak went on sampling an idle engine for the
     * rest of its minutes ("0 jobs" a minute) as if that were a result.
     */
    @Test
    void aSendWhoseReplyNeverCameDoesNotStopTheOfferedLoad() throws Exception {
        ValkeyService valkey = RealServices.valkey();
        DefaultJedisClientConfig impatient = DefaultJedisClientConfig.builder().from(valkey.clientConfig()).socketTimeoutMillis(300).build();
        String queueName = "open-loop-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        try (RedisClient producerConnection = RedisClient.builder().hostAndPort(valkey.host(), valkey.port()).clientConfig(impatient).build();
                RedisClient operator = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(producerConnection, QueueSettings.DEFAULT);
            QueueClient reader = QueueClient.connect(operator, QueueSettings.DEFAULT);
            CompletableFuture<OpenLoop.Sent> running = CompletableFuture.supplyAsync(
                    () -> OpenLoop.run(queue, queueName, RATE, JOBS, 0, Duration.ofMinutes(1)));
            waitUntilPending(reader, queueName, 20);

            // Every command waits for a second: longer than the producer's read timeout.
            operator.sendCommand(Protocol.Command.CLIENT, "PAUSE", "1000", "ALL");
            OpenLoop.Sent sent = running.get(1, TimeUnit.MINUTES);

            assertThat(sent.jobs()).as("jobs offered").isEqualTo(JOBS);
            assertThat(sent.unanswered()).as("jobs in sends that timed out").isBetween(1, JOBS - 20);
            assertThat(reader.reads().stats(queueName).pending()).as("jobs in the queue: every send that was answered, after the stall too")
                    .isGreaterThanOrEqualTo(JOBS - sent.unanswered());
        }
    }

    private static void waitUntilPending(QueueClient reader, String queueName, long jobs) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (reader.reads().stats(queueName).pending() < jobs) {
            assertThat(System.nanoTime() - deadline).as("the producer sent " + jobs + " jobs within 30 s").isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
