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
 * @param priority       {@value #LOWEST_PRIORITY} (lowest) to {@value #HIGHEST_PRIORITY} (highest), as in
 *                       JMS; absent means {@value #DEFAULT_PRIORITY}. Within its lane a job of higher
 *                       priority is claimed first; lanes are still served in turn
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
        Optional<Integer> priority,
        Optional<Dedupe> dedupe) {

    /** The lane of jobs that do not name one. */
    public static final String DEFAULT_LANE = "default";

    public static final int LOWEST_PRIORITY = 0;
    public static final int DEFAULT_PRIORITY = 4;
    public static final int HIGHEST_PRIORITY = 9;

    public NewJob {
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(maxAttempts, "maxAttempts");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(runAt, "runAt");
        Objects.requireNonNull(priority, "priority");
        Objects.requireNonNull(dedupe, "dedupe");
    }

    /** A job without a run-at time, a priority of its own or a dedupe key. */
    public NewJob(String payload, Optional<String> lane, Optional<Duration> delay, Optional<Integer> maxAttempts,
            Optional<String> idempotencyKey) {
        this(payload, lane, delay, maxAttempts, idempotencyKey, Optional.empty(), Optional.empty(), Optional.empty());
    }

    public static NewJob of(String payload) {
        return new NewJob(payload, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    public NewJob inLane(String lane) {
        return new NewJob(payload, Optional.ofNullable(lane), delay, maxAttempts, idempotencyKey, runAt, priority, dedupe);
    }

    public NewJob delayedBy(Duration delay) {
        return new NewJob(payload, lane, Optional.ofNullable(delay), maxAttempts, idempotencyKey, runAt, priority, dedupe);
    }

    /** Due at {@code runAt} on the server's clock (not together with {@link #delayedBy}). */
    public NewJob scheduledAt(Instant runAt) {
        return new NewJob(payload, lane, delay, maxAttempts, idempotencyKey, Optional.ofNullable(runAt), priority, dedupe);
    }

    public NewJob withMaxAttempts(int maxAttempts) {
        return new NewJob(payload, lane, delay, Optional.of(maxAttempts), idempotencyKey, runAt, priority, dedupe);
    }

    public NewJob withIdempotencyKey(String key) {
        return new NewJob(payload, lane, delay, maxAttempts, Optional.ofNullable(key), runAt, priority, dedupe);
    }

    /** Claimed before the lane's jobs of lower priority (see {@link #priority()}). */
    public NewJob withPriority(int priority) {
        return new NewJob(payload, lane, delay, maxAttempts, idempotencyKey, runAt, Optional.of(priority), dedupe);
    }

    /** Debounced or throttled by {@code dedupe}'s key (see {@link Dedupe}). */
    public NewJob withDedupe(Dedupe dedupe) {
        return new NewJob(payload, lane, delay, maxAttempts, idempotencyKey, runAt, priority, Optional.ofNullable(dedupe));
    }
}
