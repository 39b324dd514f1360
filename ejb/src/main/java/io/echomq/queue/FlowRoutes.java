package io.echomq.queue;

import io.echomq.queue.internal.QueueKeys;
import java.util.List;

/**
 * Where the jobs of a flow live, for {@link Flows}: the one question that differs between a queue
 * of one shard and a sharded one (docs/SHARDING.md, 3.4). Every edge of a flow is a step on one
 * slot; these routes name that slot. A queue of one shard answers its one set of keys to every
 * question; a sharded queue (its routes in {@code io.echomq.queue.shard.QueueShards}) answers a
 * job's shard by its id, a new job's by its lane (a laneless one by its key's owner), and every
 * shard to the relay's and the repair's walks.
 */
public interface FlowRoutes {

    /** Where a new job of a flow is made: its shard's keys, and the id layout the shard mints with (empty on a queue of one shard). */
    record Place(QueueKeys keys, List<String> idLayout) {
    }

    /**
     * The shard on which a new job of {@code queue} with {@code lane} and idempotency key {@code key}
     * ({@code ""} for none) is made. A job made again with the same lane and key (a child made by the
     * repair after its submitter, a root sent again) is placed on the same shard, so its key finds
     * the job made first.
     *
     * @throws InvalidRequestException naming {@code idempotencyKey} when a root's key cannot be kept unique on that shard
     */
    Place placeNew(String queue, String lane, String key);

    /** The keys of the shard of {@code queue} that holds job {@code jobId}. */
    QueueKeys keysOfJob(String queue, String jobId);

    /** Every shard's keys of {@code queue}, shard 0 first: where the relay and the repair look for work. */
    List<QueueKeys> shardsOf(String queue);

    /** The operators' moves on the shard that holds job {@code jobId} of {@code queue} (a child cancelled by its flow). */
    QueueAdmin adminOf(String queue, String jobId);
}
