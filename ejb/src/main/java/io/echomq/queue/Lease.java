package io.echomq.queue;

/**
 * The right to settle one job: whoever presents the current token may extend, complete or
 * retry it. The token is the job's attempt number, minted by the claim that made this lease.
 *
 * @param jobCreatedMs   the job's creation time (ms, Valkey server clock), set once at enqueue.
 *                       With the queue and id it names the job in the effect store: an id can
 *                       be handed out again after a failover, a creation time then differs.
 * @param idempotencyKey the key the job was submitted with, or null. The effect store keeps it
 *                       with the effect, so that a second job with the key (a resubmission
 *                       after a failover lost the first job and its key) is not applied again.
 */
public record Lease(String queue, String jobId, long jobCreatedMs, long token, String idempotencyKey) {

    /** The job this lease is for. */
    public JobIdentity identity() {
        return new JobIdentity(queue, jobId, jobCreatedMs, idempotencyKey);
    }

    /** The lease of a job submitted without an idempotency key. */
    public Lease(String queue, String jobId, long jobCreatedMs, long token) {
        this(queue, jobId, jobCreatedMs, token, null);
    }
}
