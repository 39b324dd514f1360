package io.echomq.queue.shard;

import io.echomq.queue.FlowRoutes;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import java.util.List;

/**
 * The flow routes of the queues {@link QueueShards} lays out (docs/SHARDING.md, 3.4): a job of a
 * sharded queue is made on the shard its lane names, a laneless one on its key's owner shard (a
 * laneless root without a key on the next shard in turn, as a submission's); every step on an
 * existing job goes to the shard its id names; the relay and the repair walk every shard. A
 * queue of one shard is routed as the unsharded client routes it.
 *
 * <p>Keys. A child's key ({@code flow:…}) and the keys the engine mints for the rows it relays
 * ({@code outbox:…}, {@code followup:…}) are each sent by one maker with one lane, every time:
 * their home is the shard that lane (or the key, when laneless) names, structurally (3.2). A
 * submitter's key on a root goes through the key homes as a submitted job's does (3.1,
 * {@link KeyHomes}): made at once when the root's shard owns the key (a laneless root, or a lane
 * of the owner's shard), else reserved on its owner, made on the lane's shard by that reservation
 * and confirmed; so one root (or job) over the shards holds the key.
 */
final class FlowRoutesOverShards implements FlowRoutes {

    private final QueueShards shards;
    private final FlowRoutes unsharded;

    FlowRoutesOverShards(QueueShards shards, FlowRoutes unsharded) {
        this.shards = shards;
        this.unsharded = unsharded;
    }

    @Override
    public Place placeNew(String queue, String lane, String key) {
        return shards.sharded(queue).map(q -> q.shardClients().get(shardOfNew(q, lane, key)).flows().routes().placeNew(queue, lane, key))
                .orElseGet(() -> unsharded.placeNew(queue, lane, key));
    }

    private static int shardOfNew(ShardedQueue q, String lane, String key) {
        ShardLayout layout = q.layout();
        if (ShardLayout.pinsLane(lane)) {
            return layout.shardOfLane(lane);
        }
        return key.isEmpty() ? q.submissions().nextInTurn() : layout.ownerOfKey(key);
    }

    @Override
    public FlowSubmitted makeRoot(String queue, String lane, String key, RootMaker maker) {
        return shards.sharded(queue).map(q -> key.isEmpty() || hasStructuralHome(key) ? maker.make("") : throughKeyHome(q, queue, lane, key, maker))
                .orElseGet(() -> unsharded.makeRoot(queue, lane, key, maker));
    }

    /** A submitter's key on a root of a sharded queue: made on its lane's shard (placed as {@link #placeNew} placed it) through the key's home. */
    private static FlowSubmitted throughKeyHome(ShardedQueue q, String queue, String lane, String key, RootMaker maker) {
        return q.keyHomes().submit(queue, List.of(new KeyHomes.Key("idem", key, "")), shardOfNew(q, lane, key), new KeyHomes.Maker<>() {
            @Override
            public FlowSubmitted make(String idempotencyKeyClaim, String dedupeKeyClaim) {
                // The owner's own claim is flow-add's default, so the fast path sends what it sent before key homes.
                return maker.make(idempotencyKeyClaim.equals(KeyHomes.OWN) ? "" : idempotencyKeyClaim);
            }

            @Override
            public FlowSubmitted answered(List<String> reply) {
                return Replies.flowAdded(queue, reply);
            }
        });
    }

    /** A key only one maker sends, always with the same lane: a flow's child's, or one the engine mints for a relayed row. */
    private static boolean hasStructuralHome(String key) {
        return key.startsWith(RequestChecks.FLOW_KEY_PREFIX) || key.startsWith(RequestChecks.OUTBOX_KEY_PREFIX)
                || key.startsWith(RequestChecks.FOLLOW_UP_KEY_PREFIX);
    }

    @Override
    public QueueKeys keysOfJob(String queue, String jobId) {
        return shards.sharded(queue).map(q -> q.layout().keys(q.layout().shardOfJob(jobId)))
                .orElseGet(() -> unsharded.keysOfJob(queue, jobId));
    }

    @Override
    public List<QueueKeys> shardsOf(String queue) {
        return shards.sharded(queue).map(q -> q.layout().allKeys()).orElseGet(() -> unsharded.shardsOf(queue));
    }

    @Override
    public QueueAdmin adminOf(String queue, String jobId) {
        return shards.adminOf(queue, jobId);
    }
}
