package io.echomq.queue;

import jakarta.json.JsonValue;
import java.util.Optional;

/**
 * One child of a flow parent, as the parent records it.
 *
 * @param index     the child's place among its parent's children (0-based, the order submitted)
 * @param queue     the queue the child runs on
 * @param jobId     the child's job, once made
 * @param createdMs the child's creation time, once made
 * @param onFailure what the child does to its parent if it ends dead or cancelled
 * @param outcome   the child's settlement as the parent applied it: {@code completed}, {@code dead},
 *                  {@code cancelled}, or {@code dropped:dead} / {@code dropped:cancelled} for a
 *                  child the policy {@link ChildFailure#DROP} dropped; empty while it has not settled
 * @param result    the result the child's handler set ({@code JobContext.result}), read from its
 *                  effect row; empty when it set none, has no effect row, or was not read (only a
 *                  parent's handler is given its children's results)
 */
public record FlowChild(int index, String queue, Optional<String> jobId, Optional<Long> createdMs, ChildFailure onFailure,
        Optional<String> outcome, Optional<JsonValue> result) {

    /** A child as its parent's flow record shows it, before any result is read. */
    public FlowChild(int index, String queue, Optional<String> jobId, Optional<Long> createdMs, ChildFailure onFailure,
            Optional<String> outcome) {
        this(index, queue, jobId, createdMs, onFailure, outcome, Optional.empty());
    }

    /** This child with {@code result}. */
    public FlowChild withResult(Optional<JsonValue> result) {
        return new FlowChild(index, queue, jobId, createdMs, onFailure, outcome, result);
    }

    /**
     * The child's identity for its effect row, once made: its idempotency key is the one its
     * parent derived for it ({@link Flows#childKey}), so a row recorded under that key stands for it.
     */
    public Optional<JobIdentity> identity(JobIdentity parent) {
        return jobId.map(id -> new JobIdentity(queue, id, createdMs.orElseThrow(),
                Flows.childKey(parent.queue(), parent.jobId(), parent.createdMs(), index)));
    }

    /** True when the child was dropped from its parent's wait ({@link ChildFailure#DROP}): its parent's handler is not shown it. */
    public boolean dropped() {
        return outcome.filter(o -> o.startsWith("dropped:")).isPresent();
    }
}
