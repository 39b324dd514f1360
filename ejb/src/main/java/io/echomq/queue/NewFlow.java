package io.echomq.queue;

import java.util.List;
import java.util.Objects;

/**
 * A flow to submit: a job on {@code queue} and the children it waits for, each itself a flow
 * (nested flows), possibly on other queues. A node without children is a plain job.
 *
 * <p>The root may carry an idempotency key (the whole flow is then safe to submit again); a
 * child's key is derived from its parent and its index, so a child gives none, nor a delay, a
 * run-at time or a dedupe key: a child is pending as soon as it is made, a parent when its
 * children settled.
 *
 * @param onFailure what the child does to its parent if it ends dead or cancelled; ignored on the root
 */
public record NewFlow(String queue, NewJob job, ChildFailure onFailure, List<NewFlow> children) {

    public NewFlow {
        onFailure = onFailure == null ? ChildFailure.FAIL_PARENT : onFailure;
        children = children == null ? List.of() : List.copyOf(children);
    }

    /** A job and the children it waits for. */
    public static NewFlow of(String queue, NewJob job, NewFlow... children) {
        return new NewFlow(queue, job, ChildFailure.FAIL_PARENT, List.of(children));
    }

    /** This node with {@code policy} towards its parent. */
    public NewFlow onFailure(ChildFailure policy) {
        return new NewFlow(queue, job, Objects.requireNonNull(policy, "policy"), children);
    }

    /** True when this node waits for children. */
    public boolean isParent() {
        return !children.isEmpty();
    }
}
