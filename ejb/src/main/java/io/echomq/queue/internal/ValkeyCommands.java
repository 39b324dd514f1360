package io.echomq.queue.internal;

import io.echomq.queue.QueueUnavailableException;
import java.util.Optional;
import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The one place a plain Valkey command (not a script: {@link ScriptRunner} owns those) turns a
 * connection failure, or a refusal that ran nothing ({@link #refusedUnchanged}), into
 * {@link QueueUnavailableException}. Reads and writes go through
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
        } catch (JedisDataException e) {
            throw refusedUnchanged(e).<RuntimeException>map(why -> new QueueUnavailableException(why + ": the command was refused "
                    + "and changed nothing", e)).orElse(e);
        }
    }

    /**
     * Why Valkey refused a script or a command without changing anything; empty for any other
     * error. A server full under {@code noeviction} refuses before running; a replica refuses at
     * the first write, so nothing is written (the address names a replica, or a failover demoted
     * this server and the client has not followed).
     */
    static Optional<String> refusedUnchanged(JedisDataException e) {
        String message = String.valueOf(e.getMessage());
        if (message.startsWith("OOM")) {
            return Optional.of("Valkey is out of memory (maxmemory reached with noeviction)");
        }
        if (message.startsWith("READONLY")) {
            return Optional.of("Valkey answered as a read-only replica (point the client at the primary)");
        }
        return Optional.empty();
    }
}
