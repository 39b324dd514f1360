package io.echomq.api;

import java.util.List;

/**
 * A flow to submit: a parent job and the children it waits for, each itself a flow (nested
 * flows), possibly on other queues. The parent is stored {@code waiting-children} and runs only
 * once every child has settled; each child's {@link #onFailure()} says what its ending dead or
 * cancelled does to the parent. Checked in full by the connection before anything is written.
 *
 * <p>The root's {@link JobRequest#idempotencyKey()} makes the whole flow safe to submit again; a
 * child's key is derived from its parent and its place, so a child carries none, nor a delay.
 *
 * @param job       the job at this node: its queue, payload, lane, max attempts and priority
 * @param onFailure what this node, as a child, does to its parent when it ends dead or cancelled;
 *                  ignored on the root
 * @param children  the jobs this node waits for, in order (1 to 1,000 for the root)
 */
public record FlowRequest(JobRequest job, OnChildFailure onFailure, List<FlowRequest> children) {

    public FlowRequest {
        if (job == null) {
            throw new IllegalArgumentException("job: is required");
        }
        onFailure = onFailure == null ? OnChildFailure.FAIL_PARENT : onFailure;
        children = children == null ? List.of() : List.copyOf(children);
    }

    /** {@code job} waiting for {@code children}, each failing its parent by default. */
    public static FlowRequest of(JobRequest job, FlowRequest... children) {
        return new FlowRequest(job, OnChildFailure.FAIL_PARENT, List.of(children));
    }

    /** This node with {@code policy} towards its parent. */
    public FlowRequest onFailure(OnChildFailure policy) {
        return new FlowRequest(job, policy, children);
    }
}
