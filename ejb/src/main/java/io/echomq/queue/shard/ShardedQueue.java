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
    private final ShardedSubmissions submissions;
    private final ShardedLeases leases;
    private final ShardedReads reads;
    private final ShardedAdmin admin;

    private final KeyHomeSweeper keyHomeSweeper;
    private final ShardedSchedules schedules;

    private ShardedQueue(ShardLayout layout, List<QueueClient> shards, ScriptRunner scripts, UnifiedJedis redis, QueueSettings settings,
            KeyHomes.StepWatch watch) {
        this.layout = layout;
        this.submissions = new ShardedSubmissions(layout, shards, new KeyHomes(layout, scripts, shards, watch));
        this.keyHomeSweeper = new KeyHomeSweeper(layout, scripts, redis);
        this.schedules = new ShardedSchedules(layout, scripts, shards, settings);
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
        return connect(redis, settings, layout, KeyHomes.StepWatch.NONE);
    }

    /** As {@link #connect(UnifiedJedis, QueueSettings, ShardLayout)}, with {@code watch} called before each key-home step (tests stop there). */
    static ShardedQueue connect(UnifiedJedis redis, QueueSettings settings, ShardLayout layout, KeyHomes.StepWatch watch) {
        ScriptRunner scripts = new ScriptRunner(redis, ReplicaWait.NONE);
        new ShardLayouts(redis, scripts).record(layout);
        List<QueueClient> shards = new ArrayList<>(layout.shards());
        for (int shard = 0; shard < layout.shards(); shard++) {
            shards.add(QueueClient.connectShard(redis, settings, ReplicaWait.NONE, JobTelemetry.OFF, layout, shard));
        }
        return new ShardedQueue(layout, List.copyOf(shards), scripts, redis, settings, watch);
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

    /** The queue's schedules, each on its lane's shard, with their names unique over the shards. */
    public ShardedSchedules schedules() {
        return schedules;
    }

    /** The repair and trimming of key homes (docs/SHARDING.md, 3.1): a maintenance duty. */
    public KeyHomeSweeper keyHomeSweeper() {
        return keyHomeSweeper;
    }

    /** Jobs by id and counts over the shards, as of one queue. */
    public ShardedReads reads() {
        return reads;
    }
}
