package io.echomq.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a producer submits. Only the payload is required; an absent lane means the default
 * lane, an absent delay and run-at time mean "pending now", absent max attempts means the queue
 * default. A delay and a run-at time are not given together.
 *
 * @param payload        the job's data, opaque to the queue (JSON by convention)
 * @param lane           fairness group: claims rotate over the lanes that have work
 * @param delay          how long to hold the job before it may be claimed (from the server's now)
 * @param maxAttempts    deliveries allowed before the job is dead-lettered
 * @param idempotencyKey a second submission with the same key answers the first job
 * @param runAt          the moment the job may first be claimed, judged on the Valkey server's
 *                       clock; a moment not in the future there means now
 * @param dedupe         debounce or throttle by key (see {@link Dedupe}); a debounced job takes
 *                       no delay or run-at time (the window delays it)
 */
public record NewJob(
        String payload,
        Optional<String> lane,
        Optional<Duration> delay,
        Optional<Integer> maxAttempts,
        Optional<String> idempotencyKey,
        Optional<Instant> runAt,
        Optional<Dedupe> dedupe) {

    public NewJob {
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(maxAttempts, "maxAttempts");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(runAt, "runAt");
        Objects.requireNonNull(dedupe, "dedupe");
    }

    /** A job without a dedupe key. */
    public NewJob(String payload, Optional<String> lane, Optional<Duration> delay, Optional<Integer> maxAttempts,
            Optional<String> idempotencyKey, Optional<Instant> runAt) {
        this(payload, lane, delay, maxAttempts, idempotencyKey, runAt, Optional.empty());
    }

    /** A job without a run-at time. */
    public NewJob(String payload, Optional<String> lane, Optional<Duration> delay, Optional<Integer> maxAttempts,
            Optional<String> idempotencyKey) {
        this(payload, lane, delay, maxAttempts, idempotencyKey, Optional.empty());
    }

    public static NewJob of(String payload) {
        return new NewJob(payload, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    public NewJob inLane(String lane) {
        return new NewJob(payload, Optional.ofNullable(lane), delay, maxAttempts, idempotencyKey, runAt, dedupe);
    }

    public NewJob delayedBy(Duration delay) {
        return new NewJob(payload, lane, Optional.ofNullable(delay), maxAttempts, idempotencyKey, runAt, dedupe);
    }

    /** Due at {@code runAt} on the server's clock (not together with {@link #delayedBy}). */
    public NewJob scheduledAt(Instant runAt) {
        return new NewJob(payload, lane, delay, maxAttempts, idempotencyKey, Optional.ofNullable(runAt), dedupe);
    }

    public NewJob withMaxAttempts(int maxAttempts) {
        return new NewJob(payload, lane, delay, Optional.of(maxAttempts), idempotencyKey, runAt, dedupe);
    }

    public NewJob withIdempotencyKey(String key) {
        return new NewJob(payload, lane, delay, maxAttempts, Optional.ofNullable(key), runAt, dedupe);
    }

    /** Debounced or throttled by {@code dedupe}'s key (see {@link Dedupe}). */
    public NewJob withDedupe(Dedupe dedupe) {
        return new NewJob(payload, lane, delay, maxAttempts, idempotencyKey, runAt, Optional.ofNullable(dedupe));
    }
}
