package io.echomq.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a producer submits. Only the payload is required; an absent lane means the default
 * lane, an absent delay means "pending now", absent max attempts means the queue default.
 *
 * @param payload        the job's data, opaque to the queue (JSON by convention)
 * @param lane           fairness group: claims rotate over the lanes that have work
 * @param delay          how long to hold the job before it may be claimed
 * @param maxAttempts    deliveries allowed before the job is dead-lettered
 * @param idempotencyKey a second submission with the same key answers the first job
 */
public record NewJob(
        String payload,
        Optional<String> lane,
        Optional<Duration> delay,
        Optional<Integer> maxAttempts,
        Optional<String> idempotencyKey) {

    public NewJob {
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(maxAttempts, "maxAttempts");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    }

    public static NewJob of(String payload) {
        return new NewJob(payload, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    public NewJob inLane(String lane) {
        return new NewJob(payload, Optional.ofNullable(lane), delay, maxAttempts, idempotencyKey);
    }

    public NewJob delayedBy(Duration delay) {
        return new NewJob(payload, lane, Optional.ofNullable(delay), maxAttempts, idempotencyKey);
    }

    public NewJob withMaxAttempts(int maxAttempts) {
        return new NewJob(payload, lane, delay, Optional.of(maxAttempts), idempotencyKey);
    }

    public NewJob withIdempotencyKey(String key) {
        return new NewJob(payload, lane, delay, maxAttempts, Optional.ofNullable(key));
    }
}
