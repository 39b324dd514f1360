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
     * the job made first (a root's own key, from any lane, through {@link #makeRoot}).
     */
    Place placeNew(String queue, String lane, String key);

    /** Runs {@code flow-add} for a flow's root on the shard {@link #placeNew} named for it. */
    @FunctionalInterface
    interface RootMaker {

        /**
         * Makes the root, its idempotency key claimed by {@code claim}: {@code ""} where the shard
         * needs none (a queue of one shard, a key the shard owns or whose home is structural), else
         * {@code <owner>:<token>}, the reservation by which the shard is the key's home (docs/SHARDING.md 3.1).
         *
         * @throws io.echomq.queue.internal.KeyHomeRedirect when the shard made nothing because of the key's home
         */
        FlowSubmitted make(String claim);
    }

    /**
     * Makes the root of a flow of {@code queue} in {@code lane} with its own idempotency key
     * {@code key} ({@code ""} for none) through {@code maker}, on the shard {@link #placeNew} named.
     * A queue of one shard makes it at once; on a sharded queue a submitter's key first finds or
     * takes its home (the key homes, docs/SHARDING.md 3.1), so that one root (or job) over the
     * shards holds it, and a root whose key's home holds a job on another shard is answered that job.
     *
     * @throws QueueUnavailableException (a {@code KeyInFlightException}) when the key's home is reserved on
     *         another shard by a submission whose job is not made yet: nothing was made, send it again
     */
    FlowSubmitted makeRoot(String queue, String lane, String key, RootMaker maker);

    /** The keys of the shard of {@code queue} that holds job {@code jobId}. */
    QueueKeys keysOfJob(String queue, String jobId);

    /** Every shard's keys of {@code queue}, shard 0 first: where the relay and the repair look for work. */
    List<QueueKeys> shardsOf(String queue);

    /** The operators' moves on the shard that holds job {@code jobId} of {@code queue} (a child cancelled by its flow). */
    QueueAdmin adminOf(String queue, String jobId);
}
