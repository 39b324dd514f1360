package io.echomq.queue;

/**
 * The acknowledgement of a submission.
 *
 * @param replayed true when the idempotency key was already known: {@code id} and {@code state}
 *                 are the first job's, and nothing was created
 */
public record Enqueued(String queue, String id, JobState state, boolean replayed) {
}
