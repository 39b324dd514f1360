package io.echomq.queue;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.tracing.JobTelemetry;
import io.echomq.queue.outbox.OutboxAdmin;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.shard.ShardLayout;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.UnifiedJedis;

/**
 * The queue's entry point: connected once, it hands each caller the part it uses, all over the
 * same connections and the same {@code ScriptRunner} (one script per state change, loaded once).
 * A producer takes {@link #submissions()}, a worker {@link #leases()}, an operator or a
 * maintenance duty {@link #admin()}, a console {@link #reads()}. Thread-safe; it borrows
 * connections from the given client's pool and does not close it (the pool belongs to whoever
 * created it).
 */
public final class QueueClient {

    private final QueueSettings settings;
    private final Submissions submissions;
    private final Leases leases;
    private final QueueAdmin admin;
    private final QueueReads reads;
    private final Flows flows;
    private final ScheduleClient schedules;
    private final OutboxAdmin outboxAdmin;

    private final JobTelemetry telemetry;

    private QueueClient(UnifiedJedis redis, QueueSettings settings, ReplicaWait replicaWait, JobTelemetry telemetry,
            Function<String, QueueKeys> keysOf, List<String> idLayout) {
        ScriptRunner scripts = new ScriptRunner(redis, replicaWait);
        this.settings = settings;
        this.telemetry = telemetry;
        this.admin = new QueueAdmin(scripts, settings.maxDelay(), keysOf);
        this.flows = new Flows(redis, scripts, settings, new ClientFlowRoutes(keysOf, idLayout, admin));
        this.submissions = new Submissions(scripts, settings, telemetry, flows, keysOf, idLayout);
        this.leases = new Leases(scripts, settings.promoteBatch(), settings.retention(), flows, keysOf,
                idLayout.isEmpty() ? "" : idLayout.get(0));
        this.reads = new QueueReads(redis, scripts, keysOf, idLayout.isEmpty());
        this.schedules = new ScheduleClient(redis, scripts, settings, telemetry, keysOf, idLayout);
        this.outboxAdmin = new OutboxAdmin(redis);
    }

    /**
     * A client over the given connection pool, after checking that the server cannot evict
     * queue keys (see {@link EvictionPolicyCheck}). Submissions are acknowledged as soon as the
     * primary stored them ({@link ReplicaWait#NONE}).
     *
     * @param redis a {@code RedisClient} (one server) or a {@code RedisClusterClient} (Valkey Cluster:
     *              each queue lives in its hash tag's slot)
     */
    public static QueueClient connect(UnifiedJedis redis, QueueSettings settings) {
        return connect(redis, settings, ReplicaWait.NONE);
    }

    /** Like {@link #connect(UnifiedJedis, QueueSettings)}, acknowledging submissions only once replicas hold them. */
    public static QueueClient connect(UnifiedJedis redis, QueueSettings settings, ReplicaWait replicaWait) {
        return connect(redis, settings, replicaWait, JobTelemetry.OFF);
    }

    /**
     * Like {@link #connect(UnifiedJedis, QueueSettings, ReplicaWait)}, with submissions and the
     * deliveries of workers over this client traced and metered by {@code telemetry}.
     */
    public static QueueClient connect(UnifiedJedis redis, QueueSettings settings, ReplicaWait replicaWait, JobTelemetry telemetry) {
        new EvictionPolicyGuard(redis, settings.evictionPolicyCheck()).verify();
        return new QueueClient(redis, settings, replicaWait, telemetry, RequestChecks::queueKeys, List.of());
    }

    /**
     * A client whose {@link #submissions()}, {@link #leases()}, {@link #reads()} and {@link #admin()} work on shard {@code shard} of
     * {@code layout}'s queue, with today's scripts on that shard's keys (docs/SHARDING.md); they
     * refuse every other queue. For {@code io.echomq.queue.shard}, which routes over the shards;
     * the other parts are not routed yet and must not be used on a sharded queue.
     */
    public static QueueClient connectShard(UnifiedJedis redis, QueueSettings settings, ReplicaWait replicaWait, JobTelemetry telemetry,
            ShardLayout layout, int shard) {
        QueueKeys keys = layout.keys(shard);
        return new QueueClient(redis, settings, replicaWait, telemetry, queue -> {
            layout.checkQueue(queue);
            return keys;
        }, List.of(Integer.toString(layout.shards()), Integer.toString(shard)));
    }

    /** The file names of the Lua scripts the queue runs, one per state change (for the about page). */
    public static List<String> scriptFiles() {
        return Arrays.stream(Script.values()).map(Script::fileName).toList();
    }

    /**
     * Checks a queue name as every call on a queue does, for callers that decide about a queue
     * before touching it (an API answering "unknown queue").
     *
     * @throws InvalidRequestException naming the field {@code queue}
     */
    public static String checkQueueName(String queue) {
        return RequestChecks.queueName(queue);
    }

    /**
     * Checks a job-event stream entry id ({@code <ms>-<seq>}, or {@code 0} for the oldest kept)
     * as {@link QueueReads#events} does, for callers that take it under another name (an HTTP
     * header).
     *
     * @throws InvalidRequestException naming {@code field}
     */
    public static String checkEventId(String field, String id) {
        return RequestChecks.eventId(field, id);
    }

    public QueueSettings settings() {
        return settings;
    }

    /** The traces and metrics of this client's submissions and of the workers over it. */
    public JobTelemetry telemetry() {
        return telemetry;
    }

    /** Submitting jobs, and checking a submission before storing it elsewhere. */
    public Submissions submissions() {
        return submissions;
    }

    /** A worker's claims, heartbeats and settlements. */
    public Leases leases() {
        return leases;
    }

    /** Flows: a parent and the children it waits for; their submission and the relay's and repair's steps. */
    public Flows flows() {
        return flows;
    }

    /** Operators' and maintenance's moves: cancel, promote, reschedule, remove, requeue, reconcile, reap, trim, pause, limits. */
    public QueueAdmin admin() {
        return admin;
    }

    /** Jobs, pages, history, counts and limits, read without changing anything. */
    public QueueReads reads() {
        return reads;
    }

    /** The queues' recurring jobs (schedules). */
    public ScheduleClient schedules() {
        return schedules;
    }

    /** The resource adapter's outbox gauges, dead rows and the admins' commands on them. */
    public OutboxAdmin outboxAdmin() {
        return outboxAdmin;
    }
}
