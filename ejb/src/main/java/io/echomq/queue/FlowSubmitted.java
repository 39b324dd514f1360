package io.echomq.queue;

/**
 * The acknowledgement of a flow: its root job. Every child exists once this returns (the
 * submitter made them), or is made by the flow repair from the specs the root holds.
 *
 * @param state    the root's state when answered ({@code waiting-children} for a new parent)
 * @param replayed true when the root's idempotency key was known: the answer is the first flow's root
 */
public record FlowSubmitted(String queue, String id, long createdMs, JobState state, boolean replayed) {
}
