package io.echomq.queue.shard;

import io.echomq.queue.ManualTransition;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.QueueClient;
import io.echomq.queue.ReapResult;
import io.echomq.queue.Retention;
import io.echomq.queue.TrimResult;
import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Operators' and maintenance's moves on a sharded queue (docs/SHARDING.md, sections 2, 6 and 7):
 * a move on a job goes to the shard its id names; reap and trim run on every shard, each judged on
 * its own shard's clock, and their results are added up; pause and resume are written to shard 0
 * first, which holds the queue's settings, then to every other shard. The version-compared copy of
 * settings and its repair duty ({@code ShardMetaSync}), limits as per-shard quotas and the
 * maintenance lease are not built yet. Thread-safe.
 */
public final class ShardedAdmin {

    private final ShardLayout layout;
    private final List<QueueClient> shards;

    ShardedAdmin(ShardLayout layout, List<QueueClient> shards) {
        this.layout = layout;
        this.shards = shards;
    }

    /** Returns up to {@code batch} expired leases of each shard to pending (or dead); see {@link QueueAdmin#reap}. */
    public ReapResult reap(String queue, int batch) {
        int toPending = 0;
        int toDead = 0;
        int toCancelled = 0;
        List<String> jobIds = new ArrayList<>();
        for (QueueClient shard : shards) {
            ReapResult reaped = shard.admin().reap(queue, batch);
            toPending += reaped.toPending();
            toDead += reaped.toDead();
            toCancelled += reaped.toCancelled();
            jobIds.addAll(reaped.jobIds());
        }
        return new ReapResult(queue, toPending, toDead, toCancelled, List.copyOf(jobIds));
    }

    /** Trims every shard's finished jobs to {@code retention}; see {@link QueueAdmin#trim}. The bounds apply per shard. */
    public TrimResult trim(String queue, Retention retention) {
        int completed = 0;
        int cancelled = 0;
        int dead = 0;
        for (QueueClient shard : shards) {
            TrimResult trimmed = shard.admin().trim(queue, retention);
            completed += trimmed.completed();
            cancelled += trimmed.cancelled();
            dead += trimmed.dead();
        }
        return new TrimResult(queue, completed, cancelled, dead);
    }

    /** See {@link QueueAdmin#cancel}. */
    public ManualTransition cancel(String queue, String jobId) {
        return shardOf(jobId).cancel(queue, jobId);
    }

    /** See {@link QueueAdmin#promote}. */
    public ManualTransition promote(String queue, String jobId) {
        return shardOf(jobId).promote(queue, jobId);
    }

    /** See {@link QueueAdmin#reschedule(String, String, Duration)}. */
    public ManualTransition reschedule(String queue, String jobId, Duration delay) {
        return shardOf(jobId).reschedule(queue, jobId, delay);
    }

    /** See {@link QueueAdmin#remove}. */
    public ManualTransition remove(String queue, String jobId) {
        return shardOf(jobId).remove(queue, jobId);
    }

    /** See {@link QueueAdmin#requeue}. */
    public ManualTransition requeue(String queue, String jobId) {
        return shardOf(jobId).requeue(queue, jobId);
    }

    /** See {@link QueueAdmin#reconcile}. */
    public ManualTransition reconcile(String queue, String jobId, long jobCreatedMs, String reason) {
        return shardOf(jobId).reconcile(queue, jobId, jobCreatedMs, reason);
    }

    /** Stops claims on every shard, shard 0 first; answers whether shard 0 is paused now (see {@link QueueAdmin#pause}). */
    public boolean pause(String queue) {
        boolean paused = shards.get(0).admin().pause(queue);
        shards.subList(1, shards.size()).forEach(shard -> shard.admin().pause(queue));
        return paused;
    }

    /** Lets every shard claim again, shard 0 first; answers whether shard 0 is paused now (see {@link QueueAdmin#resume}). */
    public boolean resume(String queue) {
        boolean paused = shards.get(0).admin().resume(queue);
        shards.subList(1, shards.size()).forEach(shard -> shard.admin().resume(queue));
        return paused;
    }

    private QueueAdmin shardOf(String jobId) {
        return shards.get(layout.shardOfJob(RequestChecks.jobId(jobId))).admin();
    }
}
