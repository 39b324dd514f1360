package io.echomq.effect;

import java.time.Duration;

/**
 * Timeouts of the effect transaction, set on each one ({@code SET LOCAL}), so that a paused
 * zombie holding a job's effect key cannot block the next attempt for long.
 *
 * @param lockTimeout             longest wait for a key another transaction holds (default 5 s)
 * @param idleInTransactionTimeout a transaction idle this long is ended by the server, releasing
 *                                 its key (default 60 s); handlers that wait on outside calls
 *                                 inside the transaction need it longer than those calls
 */
public record EffectSettings(Duration lockTimeout, Duration idleInTransactionTimeout) {

    public static final EffectSettings DEFAULT = new EffectSettings(Duration.ofSeconds(5), Duration.ofSeconds(60));

    public EffectSettings {
        requirePositive("lockTimeout", lockTimeout);
        requirePositive("idleInTransactionTimeout", idleInTransactionTimeout);
    }

    private static void requirePositive(String field, Duration value) {
        if (value == null || value.isNegative() || value.isZero() || value.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(field + " must be between 1 ms and " + Integer.MAX_VALUE + " ms, was " + value);
        }
    }
}
