package io.echomq.queue;

import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;

/**
 * How many replicas must hold a submission before it is acknowledged ({@code WAIT replicas
 * timeout} after the enqueue script, on the connection that ran it). Zero, the default, answers
 * as soon as the primary stored the job: faster, but a failover right after the answer can lose
 * it. One or more makes the answer wait for the replicas; when they do not confirm within the
 * timeout the submission is answered {@link QueueUnavailableException} (it may or may not
 * survive a failover: resubmit with the same idempotency key).
 *
 * @param replicas replicas that must confirm (0 = do not wait)
 * @param timeout  longest wait for them
 */
public record ReplicaWait(int replicas, Duration timeout) {

    /** Acknowledge when the primary has the job. */
    public static final ReplicaWait NONE = new ReplicaWait(0, Duration.ofSeconds(1));

    public ReplicaWait {
        RequestChecks.range("replicas", replicas, 0, 16);
        RequestChecks.between("timeout", timeout, Duration.ofMillis(1), Duration.ofMinutes(1));
    }

    public boolean waits() {
        return replicas > 0;
    }
}
