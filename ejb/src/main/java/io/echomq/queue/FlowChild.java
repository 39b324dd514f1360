package io.echomq.queue;

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
 */
public record FlowChild(int index, String queue, Optional<String> jobId, Optional<Long> createdMs, ChildFailure onFailure,
        Optional<String> outcome) {

    /** True when the child was dropped from its parent's wait ({@link ChildFailure#DROP}): its parent's handler is not shown it. */
    public boolean dropped() {
        return outcome.filter(o -> o.startsWith("dropped:")).isPresent();
    }
}
