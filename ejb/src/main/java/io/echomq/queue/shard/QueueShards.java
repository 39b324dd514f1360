package io.echomq.queue.shard;

import io.echomq.queue.Enqueued;
import io.echomq.queue.EventFilter;
import io.echomq.queue.EventIterator;
import io.echomq.queue.EventPage;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueReads;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.WorkerLeases;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.limits.LimitsInForce;
import io.echomq.queue.limits.QueueLimits;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * The queues one engine serves, each laid out over the shard count configured for it
 * ({@code echomq.queues.<q>.shards}, docs/SHARDING.md): the one place that says, for a queue,
 * which client's parts reach its jobs. A queue of one shard is served by the engine's
 * {@link QueueClient} exactly as before sharding; a queue of N > 1 by its {@link ShardedQueue}.
 * Immutable and thread-safe.
 */
public final class QueueShards {

    private final QueueClient queue;
    private final Map<String, ShardedQueue> sharded;

    private QueueShards(QueueClient queue, Map<String, ShardedQueue> sharded) {
        this.queue = queue;
        this.sharded = Map.copyOf(sharded);
    }

    /** Every queue on one shard: {@code queue}'s parts serve them all. */
    public static QueueShards none(QueueClient queue) {
        return new QueueShards(queue, Map.of());
    }

    /**
     * Records each queue's layout (docs/SHARDING.md, 10) and connects the sharded ones, before
     * anything of the engine runs. A queue of one shard is checked too: a queue left with jobs on
     * the other shards of an earlier layout is refused rather than served from shard 0 alone.
     *
     * @param shardCounts the shard count of each queue the engine serves (a queue not named has one)
     * @throws ShardCountRefusedException when a queue holds jobs minted under another count
     */
    public static QueueShards connect(UnifiedJedis redis, QueueClient queue, ReplicaWait replicaWait, Map<String, Integer> shardCounts) {
        ShardLayouts layouts = new ShardLayouts(redis, new ScriptRunner(redis, ReplicaWait.NONE));
        Map<String, ShardedQueue> sharded = new HashMap<>();
        shardCounts.forEach((name, shards) -> {
            ShardLayout layout = ShardLayout.of(name, shards);
            if (shards == 1) {
                layouts.record(layout);
            } else {
                sharded.put(name, ShardedQueue.connect(redis, queue.settings(), replicaWait, queue.telemetry(), layout));
            }
        });
        return new QueueShards(queue, sharded);
    }

    /** The client of the queues of one shard (and the engine's calls that are not per queue). */
    public QueueClient unsharded() {
        return queue;
    }

    /** {@code name}'s shards, when it has more than one. */
    public Optional<ShardedQueue> sharded(String name) {
        return Optional.ofNullable(sharded.get(name));
    }

    /** How many shards {@code name} has. */
    public int shardsOf(String name) {
        return sharded(name).map(q -> q.layout().shards()).orElse(1);
    }

    /** A worker's calls on {@code name}: its claims over every shard, its settlements on each job's shard. */
    public WorkerLeases leases(String name) {
        return sharded(name).<WorkerLeases>map(ShardedQueue::leases).orElse(queue.leases());
    }

    /**
     * One client per shard of {@code name}, in shard order: for the duties that run on every shard
     * of a queue (reaper, retention, reconciler), each on its shard's keys.
     */
    public List<QueueClient> partsOf(String name) {
        return sharded(name).map(ShardedQueue::shardClients).orElse(List.of(queue));
    }

    /** Submits one job: on its lane's shard of a sharded queue, its keys through their homes (see {@link ShardedSubmissions#enqueue}). */
    public Enqueued enqueue(String name, NewJob job) {
        return sharded(name).map(q -> q.submissions().enqueue(name, job))
                .orElseGet(() -> queue.submissions().enqueue(name, job));
    }

    /** Submits a batch: on a sharded queue, one shard's or keyed (see {@link ShardedSubmissions#enqueueBatch}). */
    public List<Enqueued> enqueueBatch(String name, List<NewJob> jobs) {
        return sharded(name).map(q -> q.submissions().enqueueBatch(name, jobs))
                .orElseGet(() -> queue.submissions().enqueueBatch(name, jobs));
    }

    /** The queue's counts, summed over its shards (see {@link ShardedReads#stats}). */
    public QueueStats stats(String name) {
        return sharded(name).map(q -> q.reads().stats(name)).orElseGet(() -> queue.reads().stats(name));
    }

    /** Stops the queue's claims, on every shard (see {@link ShardedAdmin#pause}). */
    public boolean pause(String name) {
        return sharded(name).map(q -> q.admin().pause(name)).orElseGet(() -> queue.admin().pause(name));
    }

    /** Lets the queue's claims go on, on every shard (see {@link ShardedAdmin#resume}). */
    public boolean resume(String name) {
        return sharded(name).map(q -> q.admin().resume(name)).orElseGet(() -> queue.admin().resume(name));
    }

    /** A page of the queue's jobs in {@code state}: on a sharded queue merged over its shards, the cursor joining a position per shard (see {@link ShardedReads#jobs}). */
    public JobPage jobs(String name, JobState state, Optional<String> cursor, int limit) {
        return sharded(name).map(q -> q.reads().jobs(name, state, cursor, limit))
                .orElseGet(() -> queue.reads().jobs(name, state, cursor, limit));
    }

    /**
     * The queue's job events after {@code after} (see {@link ShardedReads#events}): on a sharded
     * queue {@code after} and the page's {@code lastRead} are resume points of one entry id per shard.
     */
    public EventPage events(String name, String after, EventFilter filter, int limit) {
        return sharded(name).map(q -> q.reads().events(name, after, filter, limit))
                .orElseGet(() -> queue.reads().events(name, after, filter, limit));
    }

    /**
     * Where a reader of {@code page} resumes after each of its events, in order: the event's own id
     * on a queue of one shard, the resume point of every shard after it on a sharded queue (see
     * {@link ShardedReads#resumePoints}).
     */
    public List<String> resumePoints(String name, String after, EventPage page) {
        return sharded(name).map(q -> q.reads().resumePoints(after, page))
                .orElseGet(() -> page.events().stream().map(QueueEvent::id).toList());
    }

    /**
     * Follows the queue's job events, blocking (see {@link EventIterator}): on a sharded queue over
     * every shard, {@code after} and {@link EventIterator#lastRead()} being resume points of every
     * shard, the same as {@link #events} and the HTTP event stream take (see {@link ShardedReads#follow}).
     */
    public EventIterator follow(String name, Optional<String> after, EventFilter filter) {
        return sharded(name).map(q -> q.reads().follow(name, after, filter)).orElseGet(() -> queue.reads().follow(name, after, filter));
    }

    /** Where "from now on" starts in the queue's job-event stream: a resume point of every shard on a sharded queue. */
    public String lastEventId(String name) {
        return sharded(name).map(q -> q.reads().lastEventId(name)).orElseGet(() -> queue.reads().lastEventId(name));
    }

    /**
     * Checks a point to resume the queue's job-event stream after: one entry id, or on a sharded
     * queue also a resume point this queue's reads returned.
     *
     * @throws InvalidRequestException naming {@code field}
     */
    public String checkedResumePoint(String name, String field, String point) {
        return sharded(name).map(q -> q.reads().checkedResumePoint(field, point)).orElseGet(() -> QueueClient.checkEventId(field, point));
    }

    /** The queue's limits and their source: the queue-wide ones of a sharded queue, as shard 0 keeps them (see {@link ShardedReads#limitsInForce}). */
    public LimitsInForce limitsInForce(String name) {
        return sharded(name).map(q -> q.reads().limitsInForce(name)).orElseGet(() -> queue.reads().limitsInForce(name));
    }

    /** Sets the queue's limits over the API: on a sharded queue each shard enforces its part (see {@link ShardedAdmin#setLimits}). */
    public QueueLimits setLimits(String name, QueueLimits limits) {
        return sharded(name).map(q -> q.admin().setLimits(name, limits)).orElseGet(() -> queue.admin().setLimits(name, limits));
    }

    /** Applies the configured limits unless the same were applied before (see {@code QueueAdmin#applyConfiguredLimits}); true when applied. */
    public boolean applyConfiguredLimits(String name, QueueLimits limits) {
        return sharded(name).map(q -> q.admin().applyConfiguredLimits(name, limits))
                .orElseGet(() -> queue.admin().applyConfiguredLimits(name, limits));
    }

    /** The reads of the shard that holds job {@code jobId} of {@code name}: its job, history and effect's state are there. */
    public QueueReads readsOf(String name, String jobId) {
        return clientOf(name, jobId).reads();
    }

    /** The operators' moves on the shard that holds job {@code jobId} of {@code name} (cancel, retry, reschedule, remove…). */
    public QueueAdmin adminOf(String name, String jobId) {
        return clientOf(name, jobId).admin();
    }

    /**
     * Refuses a call that is not routed over shards yet on a sharded queue: it would reach shard 0
     * alone (and a submission there would mint ids that name no shard).
     *
     * @throws InvalidRequestException naming {@code queue}
     */
    public void requireOneShard(String name, String what) {
        int shards = shardsOf(name);
        if (shards > 1) {
            throw new InvalidRequestException("queue", "'" + name + "' has " + shards + " shards, and " + what
                    + " is not built over shards yet (docs/SHARDING.md, \"What is built, and what remains\")");
        }
    }

    private QueueClient clientOf(String name, String jobId) {
        return sharded(name).map(q -> q.shardClients().get(q.layout().shardOfJob(jobId))).orElse(queue);
    }

    /** The states of the jobs {@code name} still holds among {@code jobs}, each asked of its shard (see {@code QueueReads#statesOf}). */
    public Map<String, JobState> statesOf(String name, List<JobIdentity> jobs) {
        return sharded(name).map(q -> q.reads().statesOf(name, jobs)).orElseGet(() -> queue.reads().statesOf(name, jobs));
    }

    /** The creation contexts of these jobs, one per id in order, each read on its job's shard (see {@link ShardedReads#creationContexts}). */
    public List<String> creationContexts(String name, List<String> jobIds) {
        return sharded(name).map(q -> q.reads().creationContexts(name, jobIds))
                .orElseGet(() -> queue.reads().creationContexts(name, jobIds));
    }
}
