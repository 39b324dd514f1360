package io.echomq.queue;

import static org.awaitility.Awaitility.await;

import io.echomq.queue.internal.QueueKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The clock the scripts read (TIME on the server that runs a queue's scripts). Tests wait on it,
 * never on their own clock or by sleeping: when a wait returns, a lease, a backoff or a window
 * has passed for the scripts too. Read through the queue's hash tag, so that on a cluster it is
 * the clock of the master that holds the queue.
 */
public final class ServerClock {

    /** A server clock that does not get there within this is stuck: the wait fails. */
    private static final Duration LONGEST_WAIT = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(1);

    private final UnifiedJedis redis;
    private final String routingKey;

    private ServerClock(UnifiedJedis redis, String routingKey) {
        this.redis = redis;
        this.routingKey = routingKey;
    }

    /** The clock of the server that runs {@code queue}'s scripts. */
    public static ServerClock of(UnifiedJedis redis, String queue) {
        return new ServerClock(redis, new QueueKeys(queue).seq());
    }

    public long nowMs() {
        List<?> time = (List<?>) redis.eval("return redis.call('TIME')", List.of(routingKey), List.of());
        return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
    }

    /** Returns once the server's clock reads {@code ms} or later. */
    public void awaitReaching(long ms) {
        await("the server clock reaches " + Instant.ofEpochMilli(ms)).atMost(LONGEST_WAIT)
                .pollDelay(Duration.ZERO).pollInterval(POLL).until(() -> nowMs() >= ms);
    }

    /** Returns once {@code instant} lies in the past on the server's clock: a deadline there has expired. */
    public void awaitPast(Instant instant) {
        awaitReaching(instant.toEpochMilli() + 1);
    }
}
