package io.echomq.web.api;

import io.echomq.queue.FlowChild;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.runtime.EchoMqEngine;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The whole flow a job belongs to, from its root down to its leaves: each job's state, the
 * outcome its parent recorded, whether its parent still waits for it, and its result. Read from
 * Valkey (the parents' flow records and the jobs) and the effect store as it is now; a job that
 * retention already removed shows with its outcome and no state.
 */
final class FlowTrees {

    /** The most jobs one tree shows; a flow may hold more (1,000 children a parent, 8 levels), the rest is cut. */
    static final int MAX_NODES = 2_000;

    private final EchoMqEngine engine;
    private int nodes;

    private FlowTrees(EchoMqEngine engine) {
        this.engine = engine;
    }

    /** The tree of {@code job}'s flow, from its root (the highest ancestor Valkey still holds). */
    static Views.FlowNodeView of(EchoMqEngine engine, JobView job) {
        FlowTrees trees = new FlowTrees(engine);
        JobView root = job;
        for (Optional<JobView> parent = heldParent(engine, job); parent.isPresent(); parent = heldParent(engine, root)) {
            root = parent.get();
        }
        return trees.node(root.queue(), root.id(), Optional.of(root), null, false);
    }

    /** {@code job}'s flow parent, if it has one and Valkey still holds that very job. */
    private static Optional<JobView> heldParent(EchoMqEngine engine, JobView job) {
        return job.flowParent().flatMap(up -> job(engine, up.queue(), up.id())
                .filter(parent -> parent.createdAt().toEpochMilli() == up.createdMs()));
    }

    /** Job {@code id} of {@code queue}, read on the shard that holds it. */
    static Optional<JobView> job(EchoMqEngine engine, String queue, String id) {
        return engine.shards().readsOf(queue, id).job(queue, id);
    }

    private Views.FlowNodeView node(String queue, String id, Optional<JobView> job, FlowChild place, boolean waitedFor) {
        nodes++;
        List<Views.FlowNodeView> children = new ArrayList<>();
        boolean truncated = false;
        if (job.map(j -> j.flowChildren() > 0).orElse(false)) {
            boolean waiting = job.get().state() == JobState.WAITING_CHILDREN;
            for (FlowChild child : engine.shards().children(queue, id)) {
                if (nodes >= MAX_NODES) {
                    truncated = true;
                    break;
                }
                Optional<JobView> childJob = child.jobId().flatMap(childId -> job(engine, child.queue(), childId));
                children.add(node(child.queue(), child.jobId().orElse(null), childJob, child, waiting && child.outcome().isEmpty()));
            }
        }
        Optional<JsonValue> result = job.filter(j -> j.state() == JobState.COMPLETED).flatMap(j -> engine.effects().result(j.identity()));
        return new Views.FlowNodeView(queue, id, job.map(j -> j.state().wireName()).orElse(null),
                place == null ? null : place.index(), place == null ? null : place.onFailure().wireName(),
                place == null ? null : place.outcome().orElse(null), waitedFor, result.orElse(null), children, truncated);
    }
}
