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
    private final KeyHomes keyHomes;
    private final ShardedSubmissions submissions;
    private final ShardedLeases leases;
    private final ShardedReads reads;
    private final ShardedAdmin admin;
    private final ShardMeta meta;
    private final KeyHomeSweeper keyHomeSweeper;
    private final ShardedSchedules schedules;

    private ShardedQueue(ShardLayout layout, List<QueueClient> shards, ShardMeta meta, ScriptRunner scripts, UnifiedJedis redis,
            QueueSettings settings, KeyHomes.StepWatch watch) {
        this.layout = layout;
        this.meta = meta;
        this.shards = shards;
        this.keyHomes = new KeyHomes(layout, scripts, shards, watch);
        this.submissions = new ShardedSubmissions(layout, shards, keyHomes);
        this.leases = new ShardedLeases(layout, shards, scripts);
        this.reads = new ShardedReads(layout, shards, meta);
        this.admin = new ShardedAdmin(layout, shards, meta);
        this.keyHomeSweeper = new KeyHomeSweeper(layout, scripts, redis);
        this.schedules = new ShardedSchedules(layout, scripts, shards, settings);
    }

    /**
     * Connects to {@code layout}'s queue after recording the layout on its shards and bringing every
     * shard to shard 0's settings (a queue that had one shard keeps its pause and limits, see
     * {@link ShardMeta#adopt}).
     *
     * @throws ShardCountRefusedException when the queue holds jobs minted under another shard count, or
     *                                    has a queue-wide cap or rate below it
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
        return connect(redis, settings, replicaWait, telemetry, layout, KeyHomes.StepWatch.NONE);
    }

    /** As {@link #connect(UnifiedJedis, QueueSettings, ShardLayout)}, with {@code watch} called before each key-home step (tests stop there). */
    static ShardedQueue connect(UnifiedJedis redis, QueueSettings settings, ShardLayout layout, KeyHomes.StepWatch watch) {
        return connect(redis, settings, ReplicaWait.NONE, JobTelemetry.OFF, layout, watch);
    }

    private static ShardedQueue connect(UnifiedJedis redis, QueueSettings settings, ReplicaWait replicaWait, JobTelemetry telemetry,
            ShardLayout layout, KeyHomes.StepWatch watch) {
        ScriptRunner scripts = new ScriptRunner(redis, ReplicaWait.NONE);
        new ShardLayouts(redis, scripts).record(layout);
        List<QueueClient> shards = new ArrayList<>(layout.shards());
        for (int shard = 0; shard < layout.shards(); shard++) {
            shards.add(QueueClient.connectShard(redis, settings, replicaWait, telemetry, layout, shard));
        }
        ShardMeta meta = new ShardMeta(layout, scripts);
        if (layout.shards() > 1) {
            meta.adopt(shards.get(0).reads().limitsInForce(layout.queue()).limits());
        }
        return new ShardedQueue(layout, List.copyOf(shards), meta, scripts, redis, settings, watch);
    }

    /** Each shard's client, in shard order: for the parts of this package that run a duty per shard. */
    List<QueueClient> shardClients() {
        return shards;
    }

    public ShardLayout layout() {
        return layout;
    }

    /** Submitting jobs, each to its lane's shard; a keyed job on its key's home (docs/SHARDING.md 3.1). */
    public ShardedSubmissions submissions() {
        return submissions;
    }

    /** The key-home protocol of this queue's submissions, for a flow's keyed root too ({@link FlowRoutesOverShards}). */
    KeyHomes keyHomes() {
        return keyHomes;
    }

    /** A worker's claims over every shard in turn, and its settlements on each job's shard. */
    public ShardedLeases leases() {
        return leases;
    }

    /** Operators' moves by id; reap and trim over every shard; settings and the maintenance lease through shard 0. */
    public ShardedAdmin admin() {
        return admin;
    }

    /** The maintenance duty that brings shards left behind by a crash to shard 0's settings. */
    public ShardMetaSync metaSync() {
        return new ShardMetaSync(meta);
    }

    /** The maintenance duty that repairs and trims the key homes (docs/SHARDING.md, 3.1). */
    public KeyHomeSweeper keyHomeSweeper() {
        return keyHomeSweeper;
    }

    /** The queue's schedules, each on its lane's shard, with their names unique over the shards. */
    public ShardedSchedules schedules() {
        return schedules;
    }

    /** Settings of every shard, as shard 0 holds them (for tests in this package). */
    ShardMeta meta() {
        return meta;
    }

    /** Jobs by id and counts over the shards, pages and events merged, as of one queue. */
    public ShardedReads reads() {
        return reads;
    }
}
