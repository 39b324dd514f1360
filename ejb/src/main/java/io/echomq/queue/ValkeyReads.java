package io.echomq.queue;

import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The one place a plain read of Valkey (not a script: {@code ScriptRunner} owns those) turns a
 * connection failure into {@link QueueUnavailableException}. A read changes nothing, so a caller
 * may simply ask again.
 */
final class ValkeyReads {

    private ValkeyReads() {
    }

    static <T> T read(Supplier<T> reading) {
        try {
            return reading.get();
        } catch (JedisConnectionException | JedisClusterOperationException e) {
            throw new QueueUnavailableException("Valkey is unreachable: " + e.getMessage(), e);
        }
    }
}
