package io.echomq.queue.shard;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.MaintenanceLease;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.QueueClient;
import io.echomq.queue.ReapResult;
import io.echomq.queue.Retention;
import io.echomq.queue.TrimResult;
import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.limits.QueueLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Operators' and maintenance's moves on a sharded queue (docs/SHARDING.md, sections 2, 6 and 7):
 * a move on a job goes to the shard its id names; reap and trim run on every shard, each judged on
 * its own shard's clock, and their results are added up; the settings (pause, limits, the event
 * stream's cap) are written to shard 0, which holds them, then copied to every other shard by
 * version ({@link ShardMeta}); the maintenance lease is one per queue, on shard 0. Thread-safe.
 */
public final class ShardedAdmin {

    private final ShardLayout layout;
    private final List<QueueClient> shards;
    private final ShardMeta meta;

    ShardedAdmin(ShardLayout layout, List<QueueClient> shards, ShardMeta meta) {
        this.layout = layout;
        this.shards = shards;
        this.meta = meta;
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

    /**
     * Stops claims on every shard: shard 0 first, then each other shard; when this returns no shard
     * hands out a job. Answers true (see {@link QueueAdmin#pause}).
     */
    public boolean pause(String queue) {
        return meta.of(queue).setPaused(true).paused();
    }

    /** Lets every shard claim again, shard 0 first; when this returns every shard claims. Answers false. */
    public boolean resume(String queue) {
        return meta.of(queue).setPaused(false).paused();
    }

    /**
     * Sets the queue's limits (see {@link QueueAdmin#setLimits}): each shard enforces its part of a
     * queue-wide cap or rate, the parts summing to it, so the queue never runs over it (a shard's
     * lanes may wait while another shard's part is unused); lane limits hold per lane as they are.
     *
     * @throws InvalidRequestException naming the field at fault, also {@code maxActive} or
     *                                 {@code rate.starts} below the shard count
     */
    public QueueLimits setLimits(String queue, QueueLimits limits) {
        meta.of(queue).setLimits(limits, LimitsSource.API);
        return limits;
    }

    /** As {@link QueueAdmin#applyConfiguredLimits}, over the shards; true when the limits were applied. */
    public boolean applyConfiguredLimits(String queue, QueueLimits limits) {
        return !meta.of(queue).setLimits(limits, LimitsSource.CONFIG).kept();
    }

    /** Caps every shard's job-event stream (see {@link QueueAdmin#setEventStream}); each shard keeps up to that many. */
    public void setEventStream(String queue, int maxLength) {
        meta.of(queue).setEventStream(maxLength);
    }

    /**
     * Takes or renews the queue's one maintenance lease, on shard 0, which covers every shard (see
     * {@link QueueAdmin#holdMaintenance}): no shard has a lease of its own.
     */
    public MaintenanceLease holdMaintenance(String queue, String holder, Duration length) {
        return shards.get(0).admin().holdMaintenance(queue, holder, length);
    }

    /** Hands the queue's maintenance lease back (see {@link QueueAdmin#releaseMaintenance}). */
    public boolean releaseMaintenance(String queue, String holder) {
        return shards.get(0).admin().releaseMaintenance(queue, holder);
    }

    private QueueAdmin shardOf(String jobId) {
        return shards.get(layout.shardOfJob(jobId)).admin();
    }
}
