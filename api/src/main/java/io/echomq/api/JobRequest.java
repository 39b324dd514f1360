package io.echomq.api;

/**
 * A job to enqueue. Built with {@link #of} and the {@code with…} methods; checked again in full
 * by the connection before anything is written, and a bad value is refused with an
 * {@link IllegalArgumentException} whose message starts with the field's name.
 *
 * @param queue          the queue to put it on
 * @param payload        the payload (JSON by convention)
 * @param lane           the fairness lane, or null for the queue's default lane
 * @param idempotencyKey a key that makes a resubmission the same job, or null
 * @param maxAttempts    deliveries before it is dead-lettered, or 0 for the queue's default
 * @param delayMs        how long after it is enqueued it becomes claimable (0: at once)
 * @param priority       {@value #LOWEST_PRIORITY} (lowest) to {@value #HIGHEST_PRIORITY} (highest),
 *                       {@value #DEFAULT_PRIORITY} by default, as in JMS: within its lane a job of
 *                       higher priority is claimed first; lanes are still served in turn
 */
public record JobRequest(String queue, String payload, String lane, String idempotencyKey, int maxAttempts, long delayMs,
        int priority) {

    public static final int LOWEST_PRIORITY = 0;
    public static final int DEFAULT_PRIORITY = 4;
    public static final int HIGHEST_PRIORITY = 9;

    public JobRequest {
        if (queue == null || queue.isBlank()) {
            throw new IllegalArgumentException("queue: is required");
        }
        if (payload == null) {
            throw new IllegalArgumentException("payload: is required (send \"{}\" for none)");
        }
        if (maxAttempts < 0) {
            throw new IllegalArgumentException("maxAttempts: must be at least 1, or 0 for the queue's default; was " + maxAttempts);
        }
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs: must not be negative; was " + delayMs);
        }
        if (priority < LOWEST_PRIORITY || priority > HIGHEST_PRIORITY) {
            throw new IllegalArgumentException("priority: must be between " + LOWEST_PRIORITY + " (lowest) and " + HIGHEST_PRIORITY
                    + " (highest); was " + priority);
        }
    }

    /** A job on {@code queue} with this payload, in the default lane, with the queue's defaults. */
    public static JobRequest of(String queue, String payload) {
        return new JobRequest(queue, payload, null, null, 0, 0, DEFAULT_PRIORITY);
    }

    public JobRequest withLane(String newLane) {
        return new JobRequest(queue, payload, newLane, idempotencyKey, maxAttempts, delayMs, priority);
    }

    public JobRequest withIdempotencyKey(String key) {
        return new JobRequest(queue, payload, lane, key, maxAttempts, delayMs, priority);
    }

    public JobRequest withMaxAttempts(int attempts) {
        return new JobRequest(queue, payload, lane, idempotencyKey, attempts, delayMs, priority);
    }

    public JobRequest withDelayMs(long delay) {
        return new JobRequest(queue, payload, lane, idempotencyKey, maxAttempts, delay, priority);
    }

    /** Claimed before the lane's jobs of lower priority (see {@link #priority()}). */
    public JobRequest withPriority(int newPriority) {
        return new JobRequest(queue, payload, lane, idempotencyKey, maxAttempts, delayMs, newPriority);
    }
}
