package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import redis.clients.jedis.RedisClient;

/**
 * What a test of the scripts through {@link QueueClient} starts from: one real Valkey for the
 * class, a client with the default settings, a queue of its own for each test, and the server's
 * clock to wait on (never the test's).
 */
@WithRealServices
abstract class RealQueueTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    static RedisClient redis;
    static QueueClient client;

    String queue;
    QueueKeys keys;

    @BeforeAll
    static void connect(ValkeyService valkey) {
        redis = valkey.newClient();
        client = QueueClient.connect(redis, QueueSettings.DEFAULT);
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }

    @BeforeEach
    void freshQueue() {
        queue = getClass().getSimpleName().toLowerCase() + "-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
        keys = new QueueKeys(queue);
    }

    /** The Valkey server's clock (TIME), in ms. */
    static long serverNowMs() {
        List<?> time = (List<?>) redis.eval("return redis.call('TIME')");
        return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
    }

    /** For waits the server's clock cannot express (a lease that must expire, a window that must pass). */
    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Polls the server's clock until it reaches {@code ms} (bounded: a stuck clock fails the test). */
    static void awaitServerTime(long ms) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (serverNowMs() < ms) {
            assertThat(System.nanoTime()).as("the server clock reaches " + ms).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
