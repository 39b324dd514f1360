package io.echomq.queue;

/**
 * The right to settle one job: whoever presents the current token may extend, complete or
 * retry it. The token is the job's attempt number, minted by the claim that made this lease.
 *
 * @param jobCreatedMs the job's creation time (ms, Valkey server clock), set once at enqueue.
 *                     With the queue and id it names the job in the effect store: an id can
 *                     be handed out again after a failover, a creation time then differs.
 */
public record Lease(String queue, String jobId, long jobCreatedMs, long token) {
}
