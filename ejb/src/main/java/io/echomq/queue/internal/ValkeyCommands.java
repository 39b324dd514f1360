package io.echomq.queue.internal;

import io.echomq.queue.QueueUnavailableException;
import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The one place a plain Valkey command (not a script: {@link ScriptRunner} owns those) turns a
 * connection failure into {@link QueueUnavailableException}. Reads and writes go through
 * different doors so that a reader sees which calls change data.
 */
public final class ValkeyCommands {

    private ValkeyCommands() {
    }

    /** Runs commands that change nothing: a caller may simply ask again. */
    public static <T> T read(Supplier<T> reading) {
        return unavailableOnFailure(reading);
    }

    /**
     * Runs commands that change data that is not queue state (gauges, reports, requests to
     * relays; never a job: those change only by script, invariant 2). Each such write sets or
     * deletes fields, members or an expiry, so writing again after a failure leaves the same result.
     */
    public static <T> T write(Supplier<T> writing) {
        return unavailableOnFailure(writing);
    }

    private static <T> T unavailableOnFailure(Supplier<T> call) {
        try {
            return call.get();
        } catch (JedisConnectionException | JedisClusterOperationException e) {
            throw new QueueUnavailableException("Valkey is unreachable: " + e.getMessage(), e);
        }
    }
}
