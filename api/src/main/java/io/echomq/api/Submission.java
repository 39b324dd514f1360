package io.echomq.api;

/**
 * What came of one enqueue.
 *
 * @param queue       the job's queue
 * @param jobId       the job's id in Valkey; null when the job waits in the outbox for the
 *                    caller's transaction to commit (its id is known only once relayed)
 * @param outboxId    the job's row in the outbox, or null when it was enqueued directly
 * @param afterCommit true when the job exists only if the caller's JTA transaction commits
 * @param duplicate   true when an earlier submission with the same idempotency key stands for
 *                    this one (direct enqueue only; {@code jobId} is then the earlier job's)
 */
public record Submission(String queue, String jobId, String outboxId, boolean afterCommit, boolean duplicate) {
}
