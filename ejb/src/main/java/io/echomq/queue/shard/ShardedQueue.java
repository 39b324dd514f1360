package io.echomq.queue.shard;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.tracing.JobTelemetry;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * One queue of N shards (docs/SHARDING.md): a {@link QueueClient} per shard, each running today's
 * scripts on its shard's keys, and the parts that route over them so that a producer and a worker
 * see one queue: {@link #submissions()}, {@link #leases()}, {@link #reads()} and {@link #admin()}. Thread-safe.
 */
public final class ShardedQueue {

    private final ShardLayout layout;
    private final List<QueueClient> shards;
    private final ShardedSubmissions submissions;
    private final ShardedLeases leases;
    private final ShardedReads reads;
    private final ShardedAdmin admin;

    private ShardedQueue(ShardLayout layout, List<QueueClient> shards) {
        this.layout = layout;
        this.shards = shards;
        this.submissions = new ShardedSubmissions(layout, shards);
        this.leases = new ShardedLeases(layout, shards);
        this.reads = new ShardedReads(layout, shards);
        this.admin = new ShardedAdmin(layout, shards);
    }

    /**
     * Connects to {@code layout}'s queue after recording the layout on its shards.
     *
     * @throws ShardCountRefusedException when the queue holds jobs minted under another shard count
     */
    public static ShardedQueue connect(UnifiedJedis redis, QueueSettings settings, ShardLayout layout) {
        return connect(redis, settings, ReplicaWait.NONE, JobTelemetry.OFF, layout);
    }

    /**
     * Like {@link #connect(UnifiedJedis, QueueSettings, ShardLayout)}, each shard's client acknowledging
     * submissions as {@code replicaWait} says and traced by {@code telemetry}, as an engine's queue client is.
     */
    public static ShardedQueue connect(UnifiedJedis redis, QueueSettings settings, ReplicaWait replicaWait, JobTelemetry telemetry,
            ShardLayout layout) {
        new ShardLayouts(redis, new ScriptRunner(redis, ReplicaWait.NONE)).record(layout);
        List<QueueClient> shards = new ArrayList<>(layout.shards());
        for (int shard = 0; shard < layout.shards(); shard++) {
            shards.add(QueueClient.connectShard(redis, settings, replicaWait, telemetry, layout, shard));
        }
        return new ShardedQueue(layout, List.copyOf(shards));
    }

    /** Each shard's client, in shard order: for the parts of this package that run a duty per shard. */
    List<QueueClient> shardClients() {
        return shards;
    }

    public ShardLayout layout() {
        return layout;
    }

    /** Submitting jobs, each to its lane's shard. */
    public ShardedSubmissions submissions() {
        return submissions;
    }

    /** A worker's claims over every shard in turn, and its settlements on each job's shard. */
    public ShardedLeases leases() {
        return leases;
    }

    /** Operators' moves by id, and reap, trim, pause and resume over every shard. */
    public ShardedAdmin admin() {
        return admin;
    }

    /** Jobs by id and counts over the shards, as of one queue. */
    public ShardedReads reads() {
        return reads;
    }
}
