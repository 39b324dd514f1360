package io.echomq.effect;

import java.time.Duration;

/**
 * How the effect store runs its transactions and how long it remembers a submission.
 *
 * @param lockTimeout              longest wait for a key another transaction holds (default 5 s);
 *                                 set on each transaction ({@code SET LOCAL}), so that a paused
 *                                 zombie holding a job's effect key cannot block the next attempt
 *                                 for long
 * @param idleInTransactionTimeout a transaction idle this long is ended by the server, releasing
 *                                 its key (default 60 s); handlers that wait on outside calls
 *                                 inside the transaction need it longer than those calls
 * @param idempotencyWindow        how long an idempotency key names one effect (default 24 h): a
 *                                 job skips its handler when its key is already carried by the
 *                                 effect of a job created less than this long before it. Valkey
 *                                 answers a resubmission with the first job only while it keeps
 *                                 that job; this also covers the time after, and a failover that
 *                                 lost the first job and its key. Past it the key may name a new
 *                                 effect.
 */
public record EffectSettings(Duration lockTimeout, Duration idleInTransactionTimeout, Duration idempotencyWindow) {

    /** Longest idempotency window: the store subtracts it from creation times (ms), which must not overflow. */
    private static final long MAX_WINDOW_MS = Long.MAX_VALUE / 2;

    public static final EffectSettings DEFAULT = new EffectSettings(Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofHours(24));

    public EffectSettings {
        requirePositive("lockTimeout", lockTimeout, Integer.MAX_VALUE);
        requirePositive("idleInTransactionTimeout", idleInTransactionTimeout, Integer.MAX_VALUE);
        requirePositive("idempotencyWindow", idempotencyWindow, MAX_WINDOW_MS);
    }

    private static void requirePositive(String field, Duration value, long maxMillis) {
        if (value == null || value.isNegative() || value.isZero() || value.toMillis() > maxMillis) {
            throw new IllegalArgumentException(field + " must be between 1 ms and " + maxMillis + " ms, was " + value);
        }
    }
}
