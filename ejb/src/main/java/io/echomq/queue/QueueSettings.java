package io.echomq.queue;

import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;

/**
 * Limits and defaults of the queue client. Every value is checked when built; the message
 * names the setting.
 *
 * @param maxPayloadBytes     largest accepted payload, in UTF-8 bytes (default 1 MiB)
 * @param defaultMaxAttempts  attempts for a job that does not say (default 5)
 * @param maxAttemptsLimit    the most attempts a job may ask for (default 1000)
 * @param maxDelay            the longest delay a job may ask for (default 365 days)
 * @param promoteBatch        due delayed jobs promoted per claim call (default 1000)
 * @param evictionPolicyCheck what to do when the server may evict keys (default WARN)
 * @param retention           how many finished jobs are kept and for how long (default {@link Retention#DEFAULT}):
 *                            {@code complete} and {@code completeAndClaim} trim completed jobs to these bounds
 *                            as they settle, so retention keeps pace with any completion rate
 */
public record QueueSettings(
        int maxPayloadBytes,
        int defaultMaxAttempts,
        int maxAttemptsLimit,
        Duration maxDelay,
        int promoteBatch,
        EvictionPolicyCheck evictionPolicyCheck,
        Retention retention) {

    public static final int ONE_MIB = 1024 * 1024;

    public static final QueueSettings DEFAULT =
            new QueueSettings(ONE_MIB, 5, 1000, Duration.ofDays(365), 1000, EvictionPolicyCheck.WARN, Retention.DEFAULT);

    public QueueSettings {
        // Valkey's own bulk-string ceiling is 512 MiB; a job that large would stall the server.
        RequestChecks.range("maxPayloadBytes", maxPayloadBytes, 1, 64 * ONE_MIB);
        RequestChecks.range("maxAttemptsLimit", maxAttemptsLimit, 1, 1_000_000);
        RequestChecks.range("defaultMaxAttempts", defaultMaxAttempts, 1, maxAttemptsLimit);
        RequestChecks.nonNegative("maxDelay", maxDelay);
        RequestChecks.range("promoteBatch", promoteBatch, 1, 100_000);
        if (evictionPolicyCheck == null) {
            throw new InvalidRequestException("evictionPolicyCheck", "is required (WARN or REFUSE)");
        }
        if (retention == null) {
            throw new InvalidRequestException("retention", "is required");
        }
    }

    /** Settings with the default {@link Retention}. */
    public QueueSettings(int maxPayloadBytes, int defaultMaxAttempts, int maxAttemptsLimit, Duration maxDelay, int promoteBatch,
            EvictionPolicyCheck evictionPolicyCheck) {
        this(maxPayloadBytes, defaultMaxAttempts, maxAttemptsLimit, maxDelay, promoteBatch, evictionPolicyCheck, Retention.DEFAULT);
    }

    public QueueSettings withMaxPayloadBytes(int bytes) {
        return new QueueSettings(bytes, defaultMaxAttempts, maxAttemptsLimit, maxDelay, promoteBatch, evictionPolicyCheck, retention);
    }

    public QueueSettings withDefaultMaxAttempts(int attempts) {
        return new QueueSettings(maxPayloadBytes, attempts, maxAttemptsLimit, maxDelay, promoteBatch, evictionPolicyCheck, retention);
    }

    public QueueSettings withEvictionPolicyCheck(EvictionPolicyCheck check) {
        return new QueueSettings(maxPayloadBytes, defaultMaxAttempts, maxAttemptsLimit, maxDelay, promoteBatch, check, retention);
    }

    public QueueSettings withRetention(Retention bounds) {
        return new QueueSettings(maxPayloadBytes, defaultMaxAttempts, maxAttemptsLimit, maxDelay, promoteBatch, evictionPolicyCheck, bounds);
    }
}
