package io.echomq.queue;

/**
 * The right to settle one job: whoever presents the current token may extend, complete or
 * retry it. The token is the job's attempt number, minted by the claim that made this lease.
 */
public record Lease(String queue, String jobId, long token) {
}
