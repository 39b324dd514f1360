package io.echomq.queue;

import io.echomq.queue.internal.QueueKeys;
import java.util.List;
import java.util.function.Function;

/**
 * The flow routes of one client's keys: a queue of one shard (every queue of the unsharded
 * client), or the one shard a shard's client serves. Every job of a queue is on those keys.
 */
record ClientFlowRoutes(Function<String, QueueKeys> keysOf, List<String> idLayout, QueueAdmin admin) implements FlowRoutes {

    @Override
    public Place placeNew(String queue, String lane, String key) {
        return new Place(keysOf.apply(queue), idLayout);
    }

    /** Every job is on these keys: the root is made there at once (on a shard's keys, flow-add still checks its key's home entry). */
    @Override
    public FlowSubmitted makeRoot(String queue, String lane, String key, RootMaker maker) {
        return maker.make("");
    }

    @Override
    public QueueKeys keysOfJob(String queue, String jobId) {
        return keysOf.apply(queue);
    }

    @Override
    public List<QueueKeys> shardsOf(String queue) {
        return List.of(keysOf.apply(queue));
    }

    @Override
    public QueueAdmin adminOf(String queue, String jobId) {
        return admin;
    }
}
