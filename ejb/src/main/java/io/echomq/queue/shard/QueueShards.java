package io.echomq.queue.shard;

import io.echomq.queue.Enqueued;
import io.echomq.queue.EventFilter;
import io.echomq.queue.EventIterator;
import io.echomq.queue.EventPage;
import io.echomq.queue.FlowChild;
import io.echomq.queue.FlowRoutes;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.Flows;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.OutboxDoor;
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
import io.echomq.queue.schedule.Schedules;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import redis.clients.jedis.UnifiedJedis;

/**
 * The queues one engine serves, each laid out over the shard count configured for it
 * ({@code echomq.queues.<q>.shards}, docs/SHARDING.md): the one place that says, for a queue,
 * which client's parts reach its jobs. A queue of one shard is served by the engine's
 * {@link QueueClient} exactly as before sharding; a queue of N > 1 by its {@link ShardedQueue}.
 * Thread-safe: a queue's layout, once known, never changes here.
 */
public final class QueueShards {

    /** No shard count configured for any queue: each is laid out as Valkey records it. */
    private static final Function<String, OptionalInt> NOTHING_CONFIGURED = name -> OptionalInt.empty();

    private final QueueClient queue;
    /** Every queue laid out so far: its shards when it has more than one, else empty. */
    private final ConcurrentMap<String, Optional<ShardedQueue>> laidOut;
    /** How a queue not laid out yet is laid out at its first use. */
    private final OnUse onUse;
    private final OutboxDoor outboxDoor = new RoutedOutboxDoor();
    /** Flows whose every step goes to its job's shard (docs/SHARDING.md, 3.4). */
    private final Flows flows;
    /** The same, with a root keyed by the outbox's rule: for {@link #outboxDoor()}. */
    private final Flows outboxFlows;

    /** What laying a queue out at its first use needs: the connection, and the shard count its configuration gives it, if any. */
    private record OnUse(UnifiedJedis redis, ReplicaWait replicaWait, ShardLayouts layouts, Function<String, OptionalInt> configured) {
    }

    private QueueShards(QueueClient queue, Map<String, Optional<ShardedQueue>> laidOut, OnUse onUse) {
        this.queue = queue;
        this.laidOut = new ConcurrentHashMap<>(laidOut);
        this.onUse = onUse;
        FlowRoutes routes = new FlowRoutesOverShards(this, queue.flows().routes());
        this.flows = queue.flows().routedBy(routes);
        this.outboxFlows = queue.flows().outboxDoorRoutedBy(routes);
    }

    /** Every queue on one shard: {@code queue}'s parts serve them all. */
    public static QueueShards none(QueueClient queue) {
        return new QueueShards(queue, Map.of(), null);
    }

    /**
     * Records each queue's layout (docs/SHARDING.md, 10) and connects the sharded ones, before
     * anything of the engine runs. A queue of one shard is checked too: a queue left with jobs on
     * the other shards of an earlier layout is refused rather than served from shard 0 alone.
     * Any other queue (one the engine only sends to: a handler's follow-up) is laid out at its
     * first use as Valkey records it, so it reaches the shards its own engines laid it out over.
     *
     * @param shardCounts the shard count of each queue the engine serves (a queue not named has one)
     * @throws ShardCountRefusedException when a queue holds jobs minted under another count
     */
    public static QueueShards connect(UnifiedJedis redis, QueueClient queue, ReplicaWait replicaWait, Map<String, Integer> shardCounts) {
        ShardLayouts layouts = new ShardLayouts(redis, new ScriptRunner(redis, ReplicaWait.NONE));
        Map<String, Optional<ShardedQueue>> laidOut = new HashMap<>();
        shardCounts.forEach((name, shards) -> laidOut.put(name, layOut(redis, queue, replicaWait, layouts, name, shards)));
        return new QueueShards(queue, laidOut, new OnUse(redis, replicaWait, layouts, NOTHING_CONFIGURED));
    }

    /**
     * The queues of a runtime that learns them as it goes (the resource adapter: a message-driven
     * bean's queue at its activation, an outbox row's queue when it is relayed): each is laid out
     * at its first use, then kept. A queue {@code configured} gives a count is checked and recorded
     * with it as {@link #connect} does; any other is laid out as Valkey records it, and its
     * layout is left as it is: only a configured count changes a queue's layout.
     *
     * @throws ShardCountRefusedException from any call that first uses a queue holding jobs minted under another count than its configured one
     */
    public static QueueShards onFirstUse(UnifiedJedis redis, QueueClient queue, ReplicaWait replicaWait,
            Function<String, OptionalInt> configured) {
        ShardLayouts layouts = new ShardLayouts(redis, new ScriptRunner(redis, ReplicaWait.NONE));
        return new QueueShards(queue, Map.of(), new OnUse(redis, replicaWait, layouts, configured));
    }

    /** {@code sharded}'s queue over its shards as connected (with a key-home step watch: tests in this package), any other on one shard. */
    static QueueShards of(QueueClient queue, ShardedQueue sharded) {
        return new QueueShards(queue, Map.of(sharded.layout().queue(), Optional.of(sharded)), null);
    }

    private static Optional<ShardedQueue> layOut(UnifiedJedis redis, QueueClient queue, ReplicaWait replicaWait, ShardLayouts layouts,
            String name, int shards) {
        ShardLayout layout = ShardLayout.of(name, shards);
        if (shards == 1) {
            layouts.record(layout);
            return Optional.empty();
        }
        return Optional.of(ShardedQueue.connect(redis, queue.settings(), replicaWait, queue.telemetry(), layout));
    }

    /** The client of the queues of one shard (and the engine's calls that are not per queue). */
    public QueueClient unsharded() {
        return queue;
    }

    /** {@code name}'s shards, when it has more than one (none for a null name, which the requests' checks refuse by field). */
    public Optional<ShardedQueue> sharded(String name) {
        if (name == null) {
            return Optional.empty();
        }
        Optional<ShardedQueue> known = laidOut.get(name);
        if (known != null) {
            return known;
        }
        if (onUse == null || !isQueueName(name)) {
            return Optional.empty();
        }
        return laidOut.computeIfAbsent(name, this::layOutOnFirstUse);
    }

    private Optional<ShardedQueue> layOutOnFirstUse(String name) {
        OptionalInt configured = onUse.configured().apply(name);
        if (configured.isPresent()) {
            return layOut(onUse.redis(), queue, onUse.replicaWait(), onUse.layouts(), name, configured.getAsInt());
        }
        int recorded = onUse.layouts().recordedShards(name);
        return recorded == 1 ? Optional.empty()
                : Optional.of(ShardedQueue.connect(onUse.redis(), queue.settings(), onUse.replicaWait(), queue.telemetry(),
                        ShardLayout.of(name, recorded)));
    }

    private static boolean isQueueName(String name) {
        try {
            QueueClient.checkQueueName(name);
            return true;
        } catch (InvalidRequestException e) {
            return false;
        }
    }

    /**
     * The engine's outbox's door into these queues (see {@link OutboxDoor}): a job into a sharded
     * queue through {@link ShardedSubmissions#outboxDoor()}, on the shard a submission of it would
     * reach, its key through its home, so a row relayed again finds the one job it made; a job
     * into any other queue through the unsharded client's door. A flow's jobs go where
     * {@link #flows()} routes them, its root keyed by the outbox's rule.
     */
    public OutboxDoor outboxDoor() {
        return outboxDoor;
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

    /** The schedules of {@code name}: on a sharded queue each on its lane's shard, named through shard 0's directory (see {@link ShardedSchedules}). */
    public Schedules schedules(String name) {
        return sharded(name).<Schedules>map(ShardedQueue::schedules).orElse(queue.schedules());
    }

    /** The door of {@link #outboxDoor()}: each call to the door of its queue's layout. */
    private final class RoutedOutboxDoor implements OutboxDoor {

        @Override
        public Enqueued enqueue(String name, NewJob job, String creationContext) {
            return doorOf(name).enqueue(name, job, creationContext);
        }

        @Override
        public void check(String name, NewJob job) {
            doorOf(name).check(name, job);
        }

        @Override
        public FlowSubmitted submitFlow(NewFlow flow, String creationContext) {
            return queue.telemetry().resuming(creationContext, () -> outboxFlows.submit(flow));
        }

        @Override
        public void checkFlow(NewFlow flow) {
            outboxFlows.check(flow);
        }

        @Override
        public int shardsOf(String name) {
            return QueueShards.this.shardsOf(name);
        }

        private OutboxDoor doorOf(String name) {
            return sharded(name).<OutboxDoor>map(q -> q.submissions().outboxDoor()).orElseGet(() -> queue.submissions().outboxDoor());
        }
    }

    /**
     * Flows over these queues (docs/SHARDING.md, 3.4): a job of a sharded queue made on its lane's
     * shard (a laneless one on its key's owner, a laneless root without a key on the next shard in
     * turn), every edge sent to the shard its job's id names, the relay's and repair's walks over
     * every shard; a queue of one shard as the unsharded client's {@code flows()}. See
     * {@link FlowRoutesOverShards} for a root's idempotency key.
     */
    public Flows flows() {
        return flows;
    }

    /** Submits a flow, each job on its shard (see {@link #flows()} and {@link Flows#submit}). */
    public FlowSubmitted submitFlow(NewFlow flow) {
        return flows.submit(flow);
    }

    /**
     * Checks a flow as {@link #submitFlow} would, sending nothing (see {@link Flows#check}).
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public void checkFlow(NewFlow flow) {
        flows.check(flow);
    }

    /** A flow parent's children as its record on its shard shows them (see {@link Flows#children}). */
    public List<FlowChild> children(String name, String parentId) {
        return flows.children(name, parentId);
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

    /**
     * Each shard of the queue as an operator sees it: tag, slot, master, counts, limits and settings
     * version (see {@link ShardedReads#shards}); one shard, shard 0, for a queue of one shard.
     */
    public List<ShardView> shardViews(String name) {
        return sharded(name).map(q -> q.reads().shards(name)).orElseGet(() -> List.of(ShardedReads.onlyShard(name, queue.reads())));
    }
}
