package io.echomq.queue;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Instant;
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
    /** One server: every queue's scripts read this clock. */
    private static ServerClock serverClock;

    String queue;
    QueueKeys keys;

    @BeforeAll
    static void connect(ValkeyService valkey) {
        redis = valkey.newClient();
        client = QueueClient.connect(redis, QueueSettings.DEFAULT);
        serverClock = ServerClock.of(redis, "any-queue");
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

    /** The Valkey server's clock (TIME), in ms: the one the scripts read. */
    static long serverNowMs() {
        return serverClock.nowMs();
    }

    /** Returns once the server's clock reads {@code ms} or later (a stuck clock fails the test). */
    static void awaitServerTime(long ms) {
        serverClock.awaitReaching(ms);
    }

    /** Returns once {@code instant} (a lease deadline, a due time) lies in the past on the server's clock. */
    static void awaitServerTimePast(Instant instant) {
        serverClock.awaitPast(instant);
    }
}
