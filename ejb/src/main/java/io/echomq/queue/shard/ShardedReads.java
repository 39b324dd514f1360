package io.echomq.queue.shard;

import io.echomq.queue.JobEvent;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueReads;
import io.echomq.queue.QueueStats;
import io.echomq.queue.internal.RequestChecks;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads of a sharded queue that show one queue (docs/SHARDING.md, section 8): a job by the shard
 * its id names, counts summed over the shards. Each shard's part is today's read there, so the
 * same caveat holds: a job that changes state during a read may show in its old state. Pages and
 * the event stream over shards are not built yet. Thread-safe.
 */
public final class ShardedReads {

    private final ShardLayout layout;
    private final List<QueueClient> shards;

    ShardedReads(ShardLayout layout, List<QueueClient> shards) {
        this.layout = layout;
        this.shards = shards;
    }

    /** One job as its shard holds it now (see {@link QueueReads#job}). */
    public Optional<JobView> job(String queue, String jobId) {
        return shardOf(jobId).job(queue, jobId);
    }

    /** One job's history, from its shard (see {@link QueueReads#history}). */
    public List<JobEvent> history(String queue, String jobId) {
        return shardOf(jobId).history(queue, jobId);
    }

    /**
     * The counts of every shard added up: jobs per state, lanes with work and held (the default
     * lane counts once per shard that has work in it); paused as shard 0, which holds the queue's
     * settings, says. The shards are read one after another, not at one instant.
     */
    public QueueStats stats(String queue) {
        List<QueueStats> each = shards.stream().map(shard -> shard.reads().stats(queue)).toList();
        return new QueueStats(queue,
                each.stream().mapToLong(QueueStats::pending).sum(),
                each.stream().mapToLong(QueueStats::delayed).sum(),
                each.stream().mapToLong(QueueStats::active).sum(),
                each.stream().mapToLong(QueueStats::completed).sum(),
                each.stream().mapToLong(QueueStats::dead).sum(),
                each.stream().mapToLong(QueueStats::cancelled).sum(),
                each.get(0).paused(),
                each.stream().mapToInt(QueueStats::lanesWithWork).sum(),
                each.stream().mapToInt(QueueStats::lanesHeld).sum(),
                each.stream().mapToLong(QueueStats::waitingChildren).sum());
    }

    /** The states of the jobs the queue still holds among {@code jobs}, each asked of its shard (see {@link QueueReads#statesOf}). */
    public Map<String, JobState> statesOf(String queue, List<JobIdentity> jobs) {
        Map<Integer, List<JobIdentity>> byShard = new HashMap<>();
        for (JobIdentity job : jobs) {
            byShard.computeIfAbsent(layout.shardOfJob(job.jobId()), s -> new ArrayList<>()).add(job);
        }
        Map<String, JobState> states = new HashMap<>();
        byShard.forEach((shard, asked) -> states.putAll(shards.get(shard).reads().statesOf(queue, asked)));
        return Map.copyOf(states);
    }

    private QueueReads shardOf(String jobId) {
        return shards.get(layout.shardOfJob(RequestChecks.jobId(jobId))).reads();
    }
}
