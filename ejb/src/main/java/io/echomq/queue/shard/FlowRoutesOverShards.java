package io.echomq.queue.shard;

import io.echomq.queue.FlowRoutes;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.internal.QueueKeys;
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
 * submitter's key on a root is kept unique over the shards by making the root on the key's owner
 * shard only (the fast path of 3.1, where {@code flow-add} also finds a home recorded on another
 * shard): a root whose lane is on another shard than its key's owner is refused naming
 * {@code idempotencyKey}, since a flow does not go through the key homes' reservations.
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
        if (!key.isEmpty() && !hasStructuralHome(key)) {
            int owner = layout.ownerOfKey(key);
            if (ShardLayout.pinsLane(lane) && layout.shardOfLane(lane) != owner) {
                throw new InvalidRequestException("idempotencyKey", "'" + layout.queue() + "' has " + layout.shards()
                        + " shards: a flow's root with a key is made on the shard that owns its key (shard " + owner + "), and lane '" + lane
                        + "' is on shard " + layout.shardOfLane(lane) + "; give the root no lane, or no key (docs/SHARDING.md, 3.4)");
            }
            return owner;
        }
        if (ShardLayout.pinsLane(lane)) {
            return layout.shardOfLane(lane);
        }
        return key.isEmpty() ? q.submissions().nextInTurn() : layout.ownerOfKey(key);
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
