package io.echomq.queue;

import static io.echomq.queue.ValkeyReads.read;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * The queue's Java API: one method per state-machine script. Every state change is one
 * atomic script on the server; this class validates input, names the keys, and reads the
 * reply as a typed outcome. Thread-safe; it borrows connections from the given client's pool
 * and does not close it (the pool belongs to whoever created it).
 */
public final class QueueClient {

    /** Longest last-error message kept on a job; the rest is cut. */
    public static final int MAX_ERROR_CHARS = 4_000;

    /** The lane of jobs that do not name one. */
    public static final String DEFAULT_LANE = "default";

    private final UnifiedJedis redis;
    private final QueueSettings settings;
    private final ScriptRunner scripts;
    private final ScheduleClient schedules;
    private final OutboxAdmin outboxAdmin;

    private QueueClient(UnifiedJedis redis, QueueSettings settings, ReplicaWait replicaWait) {
        this.redis = redis;
        this.settings = settings;
        this.scripts = new ScriptRunner(redis, replicaWait);
        this.schedules = new ScheduleClient(redis, scripts, settings);
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
        new EvictionPolicyGuard(redis, settings.evictionPolicyCheck()).verify();
        return new QueueClient(redis, settings, replicaWait);
    }

    /**
     * Checks a queue name as every method here does, for callers that decide about a queue
     * before touching it (an API answering "unknown queue").
     *
     * @throws InvalidRequestException naming the field {@code queue}
     */
    /** The file names of the Lua scripts this client runs, one per state change (for the about page). */
    public static List<String> scriptFiles() {
        return java.util.Arrays.stream(Script.values()).map(Script::fileName).toList();
    }

    public static String checkQueueName(String queue) {
        return RequestChecks.queueName(queue);
    }

    public QueueSettings settings() {
        return settings;
    }

    /** The queues' recurring jobs (schedules), over the same connections and scripts. */
    public ScheduleClient schedules() {
        return schedules;
    }

    /** The resource adapter's dead outbox rows and the admins' commands on them, over the same connections. */
    public OutboxAdmin outboxAdmin() {
        return outboxAdmin;
    }

    /** The most jobs one claim may lease, and one complete-claim may acknowledge. */
    public static final int MAX_CLAIM_JOBS = RequestChecks.MAX_CLAIM_BATCH;

    /** The most jobs one batch submission may carry. */
    public static final int MAX_BATCH_JOBS = 1_000;

    /**
     * Submits one job. With an idempotency key, a lost reply may be answered by sending the
     * submission again (the key makes that safe); without one it is sent once, and a lost reply is
     * a {@link QueueOutcomeUnknownException}: the job may exist. With a {@link Dedupe dedupe key},
     * the answer says whether a job was made, replaced (debounce) or not made (throttle); a
     * debounced submission sent again replaces again, with the same payload.
     */
    public Enqueued enqueue(String queue, NewJob job) {
        QueueKeys keys = keysOf(queue);
        List<String> args = new ArrayList<>(List.of(keys.prefix()));
        args.addAll(scriptArguments(job, ""));
        return Replies.enqueued(queue, submit(Script.ENQUEUE, keys, args, job.idempotencyKey().isPresent()));
    }

    /**
     * Submits several jobs atomically: every job is validated first, and then all are stored
     * in one script call, or none is. A field error names the job, e.g. {@code jobs[3].lane}.
     * Sent again after a lost reply only when every job carries an idempotency key, as for
     * {@link #enqueue}.
     */
    public List<Enqueued> enqueueBatch(String queue, List<NewJob> jobs) {
        QueueKeys keys = keysOf(queue);
        if (jobs == null || jobs.isEmpty() || jobs.size() > MAX_BATCH_JOBS) {
            throw new InvalidRequestException("jobs", "must hold 1 to " + MAX_BATCH_JOBS + " jobs, held "
                    + (jobs == null ? 0 : jobs.size()));
        }
        List<String> args = new ArrayList<>(2 + jobs.size() * 10);
        args.add(keys.prefix());
        args.add(Integer.toString(jobs.size()));
        for (int i = 0; i < jobs.size(); i++) {
            args.addAll(scriptArguments(jobs.get(i), "jobs[" + i + "]."));
        }
        boolean keyed = jobs.stream().allMatch(job -> job.idempotencyKey().isPresent());
        return Replies.enqueuedBatch(queue, submit(Script.ENQUEUE_BATCH, keys, args, keyed));
    }

    /**
     * Checks a submission exactly as {@link #enqueue} would, and sends nothing: for callers that
     * store a job first and submit it later (the resource adapter's outbox), so that a stored job
     * is one the queue takes.
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public void check(String queue, NewJob job) {
        keysOf(queue);
        scriptArguments(job, "");
    }

    /**
     * Checks a batch exactly as {@link #enqueueBatch} would (fields named {@code jobs[i].…}), and
     * sends nothing.
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public void checkBatch(String queue, List<NewJob> jobs) {
        keysOf(queue);
        if (jobs == null || jobs.isEmpty() || jobs.size() > MAX_BATCH_JOBS) {
            throw new InvalidRequestException("jobs", "must hold 1 to " + MAX_BATCH_JOBS + " jobs, held "
                    + (jobs == null ? 0 : jobs.size()));
        }
        for (int i = 0; i < jobs.size(); i++) {
            scriptArguments(jobs.get(i), "jobs[" + i + "].");
        }
    }

    private Object submit(Script script, QueueKeys keys, List<String> args, boolean keyed) {
        return keyed ? scripts.runKeyedSubmission(script, keys, args) : scripts.run(script, keys, null, args);
    }

    /** A job's ten script arguments, after checking each field; {@code at} prefixes field names. */
    private List<String> scriptArguments(NewJob job, String at) {
        if (job == null) {
            throw new InvalidRequestException(at.isEmpty() ? "job" : at.substring(0, at.length() - 1), "is required");
        }
        try {
            String payload = RequestChecks.payload(job.payload(), settings.maxPayloadBytes());
            String lane = RequestChecks.laneName(job.lane().orElse(DEFAULT_LANE));
            Duration delay = RequestChecks.between("delay", job.delay().orElse(Duration.ZERO), Duration.ZERO, settings.maxDelay());
            if (job.runAt().isPresent() && job.delay().isPresent()) {
                throw new InvalidRequestException("runAt", "give a delay or a run-at time, not both");
            }
            String runAt = job.runAt().map(time -> Long.toString(RequestChecks.runAt("runAt", time))).orElse("");
            int maxAttempts = (int) RequestChecks.range("maxAttempts",
                    job.maxAttempts().orElse(settings.defaultMaxAttempts()), 1, settings.maxAttemptsLimit());
            String idempotencyKey = job.idempotencyKey().map(RequestChecks::idempotencyKey).orElse("");
            List<String> dedupe = List.of("", "0", "");
            if (job.dedupe().isPresent()) {
                Dedupe d = job.dedupe().get();
                if (d.mode() == null) {
                    throw new InvalidRequestException("dedupe.mode", "is required: debounce or throttle");
                }
                String key = RequestChecks.dedupeKey(d.key());
                Duration window = RequestChecks.dedupeWindow(d.window());
                if (d.mode() == Dedupe.Mode.DEBOUNCE && (job.delay().isPresent() || job.runAt().isPresent())) {
                    throw new InvalidRequestException("dedupe.mode",
                            "debounce delays the job by the window itself: give no delay or run-at time with it");
                }
                dedupe = List.of(key, Long.toString(window.toMillis()), d.mode().wireName());
            }
            int priority = (int) RequestChecks.range("priority", job.priority().orElse(NewJob.DEFAULT_PRIORITY),
                    NewJob.LOWEST_PRIORITY, NewJob.HIGHEST_PRIORITY);
            List<String> args = new ArrayList<>(10);
            args.addAll(List.of(payload, Integer.toString(maxAttempts), Long.toString(delay.toMillis()), lane, idempotencyKey, runAt,
                    Integer.toString(priority)));
            args.addAll(dedupe);
            return args;
        } catch (InvalidRequestException e) {
            if (at.isEmpty()) {
                throw e;
            }
            throw new InvalidRequestException(at + e.field(), e.getMessage().substring(e.field().length() + 2));
        }
    }

    /**
     * Leases up to {@code maxJobs} jobs to {@code workerId} for {@code lease}, on the server
     * clock. Returns an empty list when nothing is claimable or the queue is paused.
     */
    public List<ClaimedJob> claim(String queue, Duration lease, int maxJobs, String workerId) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.lease(lease);
        RequestChecks.range("maxJobs", maxJobs, 1, RequestChecks.MAX_CLAIM_BATCH);
        RequestChecks.workerId(workerId);
        Object reply = scripts.run(Script.CLAIM, keys, null, List.of(keys.prefix(), Long.toString(lease.toMillis()),
                Integer.toString(maxJobs), workerId, Integer.toString(settings.promoteBatch())));
        return Replies.claimed(queue, reply);
    }

    /**
     * A worker's round trip: acknowledges the {@code finished} leases (each fenced by its token,
     * as {@link #complete} does) and then leases up to {@code maxJobs} new jobs (as {@link #claim}
     * does), in one atomic script call. Either part may be empty. All leases must be of
     * {@code queue}. Completed jobs beyond the {@link QueueSettings#retention() retention} bounds
     * are deleted in the same call (at most two per job completed).
     */
    public CompletedAndClaimed completeAndClaim(String queue, List<Lease> finished, Duration lease, int maxJobs,
            String workerId) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.lease(lease);
        RequestChecks.range("maxJobs", maxJobs, 0, RequestChecks.MAX_CLAIM_BATCH);
        RequestChecks.range("finished", finished.size(), 0, RequestChecks.MAX_CLAIM_BATCH);
        RequestChecks.workerId(workerId);
        Retention retention = settings.retention();
        List<String> args = new ArrayList<>(8 + finished.size() * 3);
        args.addAll(List.of(keys.prefix(), Long.toString(lease.toMillis()), Integer.toString(maxJobs), workerId,
                Integer.toString(settings.promoteBatch()), Integer.toString(retention.completedKeepCount()),
                Long.toString(retention.completedMaxAge().toMillis()), Integer.toString(finished.size())));
        for (Lease done : finished) {
            if (!done.queue().equals(queue)) {
                throw new InvalidRequestException("finished", "holds a lease of queue '" + done.queue() + "', not '" + queue + "'");
            }
            args.add(RequestChecks.jobId(done.jobId()));
            args.add(Long.toString(done.token()));
            args.add(Long.toString(done.jobCreatedMs()));
        }
        return Replies.completedAndClaimed(queue, finished, scripts.run(Script.COMPLETE_CLAIM, keys, null, args));
    }

    /**
     * The heartbeat: the lease now runs until the server's now + {@code lease}. Fenced by the
     * lease's token and its job's creation time, as {@link #complete} is.
     */
    public LeaseExtension extend(Lease lease, Duration length) {
        return extend(lease, length, null);
    }

    /**
     * The heartbeat, carrying the latest progress the job's handler reported ({@code null}: none
     * since the last beat). The progress is recorded only if the lease is current, with the
     * lease's attempt (a stale lease's report changes nothing).
     */
    public LeaseExtension extend(Lease lease, Duration length, Progress progress) {
        QueueKeys keys = keysOf(lease);
        RequestChecks.lease(length);
        Object reply = scripts.run(Script.EXTEND, keys, lease.jobId(),
                List.of(keys.prefix(), lease.jobId(), Long.toString(lease.token()), Long.toString(lease.jobCreatedMs()),
                        Long.toString(length.toMillis()), progress == null ? "" : Integer.toString(progress.percent()),
                        progress == null ? "" : progress.message()));
        return Replies.extended(lease, reply);
    }

    /**
     * The acknowledgement. A stale lease (another token, or a job of another creation time: an
     * id handed out again after a failover) is {@link Rejected} and changes nothing. Completed
     * jobs beyond the {@link QueueSettings#retention() retention} bounds are deleted in the same
     * call (at most two).
     */
    public Settlement complete(Lease lease) {
        QueueKeys keys = keysOf(lease);
        Retention retention = settings.retention();
        Object reply = scripts.run(Script.COMPLETE, keys, lease.jobId(),
                List.of(keys.prefix(), lease.jobId(), Long.toString(lease.token()), Long.toString(lease.jobCreatedMs()),
                        Integer.toString(retention.completedKeepCount()), Long.toString(retention.completedMaxAge().toMillis())));
        return Replies.completed(lease, reply);
    }

    /**
     * Reports a failed attempt: the job is retried after {@code backoff} (server clock), or
     * dead-lettered when its attempts are spent or the failure is {@link FailureKind#PERMANENT};
     * a {@link FailureKind#CONTENDED} attempt does not spend one. Fenced as {@link #complete} is.
     */
    public RetryOutcome retry(Lease lease, String error, Backoff backoff, FailureKind kind) {
        QueueKeys keys = keysOf(lease);
        Object reply = scripts.run(Script.RETRY, keys, lease.jobId(), List.of(keys.prefix(), lease.jobId(),
                Long.toString(lease.token()), Long.toString(lease.jobCreatedMs()), truncateError(error), Long.toString(backoff.base().toMillis()),
                Long.toString(backoff.cap().toMillis()), kind.scriptArgument()));
        return Replies.retried(lease, reply);
    }

    /** Returns up to {@code batch} jobs whose lease expired to pending (or dead). */
    public ReapResult reap(String queue, int batch) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.range("batch", batch, 1, 100_000);
        return Replies.reaped(queue, scripts.run(Script.REAP, keys, null, List.of(keys.prefix(), Integer.toString(batch))));
    }

    /**
     * Withdraws a pending or delayed job; for an active job, requests its cancel
     * ({@link ManualTransition.CancelRequested}: its worker learns it with the next heartbeat, see
     * {@link LeaseExtension.Extended#cancelRequested()}); finished jobs are refused.
     */
    public ManualTransition cancel(String queue, String jobId) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.jobId(jobId);
        Object reply = scripts.run(Script.CANCEL, keys, jobId, List.of(keys.prefix(), jobId));
        return Replies.cancelled(queue, jobId, reply, "only pending, delayed or active jobs can be cancelled");
    }

    /**
     * Ends an active job whose cancel was requested as cancelled, by the holder of its lease,
     * after its attempt ended without committing its effect. Fenced as {@link #complete} is; a
     * job whose cancel nobody requested is left active ({@link StopOutcome.NotRequested}).
     */
    public StopOutcome stop(Lease lease, String reason) {
        QueueKeys keys = keysOf(lease);
        Object reply = scripts.run(Script.STOP, keys, lease.jobId(), List.of(keys.prefix(), lease.jobId(),
                Long.toString(lease.token()), Long.toString(lease.jobCreatedMs()), truncateError(reason)));
        return Replies.stopped(lease, reply);
    }

    /**
     * Makes a delayed job pending now, whatever its due time (an operator's "run it now"). Jobs
     * in any other state are refused.
     */
    public ManualTransition promote(String queue, String jobId) {
        return reschedule(queue, jobId, "now", "");
    }

    /**
     * Moves a delayed job's due time to {@code runAt}, judged on the server's clock: a moment
     * not in the future there makes the job pending now ({@link ManualTransition.Moved}), any
     * other is its new due time ({@link ManualTransition.Rescheduled}). Jobs in any other state
     * are refused.
     */
    public ManualTransition reschedule(String queue, String jobId, Instant runAt) {
        return reschedule(queue, jobId, "at", Long.toString(RequestChecks.runAt("runAt", runAt)));
    }

    /** As {@link #reschedule(String, String, Instant)}, due {@code delay} after the server's now (0: pending now). */
    public ManualTransition reschedule(String queue, String jobId, Duration delay) {
        return reschedule(queue, jobId, "in",
                Long.toString(RequestChecks.between("delay", delay, Duration.ZERO, settings.maxDelay()).toMillis()));
    }

    private ManualTransition reschedule(String queue, String jobId, String how, String value) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.jobId(jobId);
        Object reply = scripts.run(Script.RESCHEDULE, keys, jobId, List.of(keys.prefix(), jobId, how, value));
        return Replies.rescheduled(queue, jobId, reply, "only a delayed job can be promoted or rescheduled");
    }

    /** Deletes a finished (completed, dead or cancelled) job and its history now. */
    public ManualTransition remove(String queue, String jobId) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.jobId(jobId);
        Object reply = scripts.run(Script.REMOVE, keys, jobId, List.of(keys.prefix(), jobId));
        return Replies.removed(queue, jobId, reply, "only completed, dead or cancelled jobs can be deleted");
    }

    /**
     * A job's history, oldest first: each claim (attempt, worker, lease deadline), heartbeat,
     * settlement, refusal of a stale worker, reap and operator action, as the scripts recorded
     * them on the server clock. Empty when there is no such job.
     */
    public List<JobEvent> history(String queue, String jobId) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.jobId(jobId);
        return read(() -> redis.lrange(keys.history(jobId), 0, -1).stream().map(JobEvent::parse).toList());
    }

    /** Gives a dead job a fresh budget of attempts and makes it pending again. */
    public ManualTransition requeue(String queue, String jobId) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.jobId(jobId);
        Object reply = scripts.run(Script.REQUEUE, keys, jobId, List.of(keys.prefix(), jobId));
        return Replies.moved(queue, jobId, JobState.PENDING, reply, "only dead jobs can be requeued");
    }

    /**
     * Completes a job whose effect the caller saw committed but which is not active nor
     * completed (pending, delayed, dead or cancelled); {@code reason} stays on the job as its note.
     * {@code jobCreatedMs} is the creation time the effect row names (0 for a row that names
     * none): a job with this id but another creation time is another job and is not touched.
     */
    public ManualTransition reconcile(String queue, String jobId, long jobCreatedMs, String reason) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.jobId(jobId);
        Object reply = scripts.run(Script.RECONCILE, keys, jobId,
                List.of(keys.prefix(), jobId, truncateError(reason), Long.toString(jobCreatedMs)));
        return Replies.moved(queue, jobId, JobState.COMPLETED, reply, "only a job that is not active nor completed is reconciled");
    }

    /**
     * Up to {@code limit} ids of jobs in {@code state} (not pending) whose score (the time they
     * entered the state) is after {@code afterScore}, oldest first, with their scores: a cursor
     * for maintenance passes that walk a whole set a batch at a time.
     */
    public List<Map.Entry<String, Long>> idsInState(String queue, JobState state, long afterScore, int limit) {
        QueueKeys keys = keysOf(queue);
        return read(() -> redis.zrangeByScoreWithScores(JobPages.setOf(keys, state), "(" + afterScore, "+inf", 0, limit).stream()
                .map(t -> Map.entry(t.getElement(), (long) t.getScore()))
                .toList());
    }

    public QueueStats stats(String queue) {
        QueueKeys keys = keysOf(queue);
        return Replies.stats(queue, scripts.run(Script.STATS, keys, null, List.of(keys.prefix())));
    }

    /** The most trim calls one {@link #trim} makes: {@code MAX_TRIM_CALLS × retention.batch()} jobs at most. */
    public static final int MAX_TRIM_CALLS = 100;

    /**
     * Deletes finished jobs beyond the retention bounds: repeats bounded script calls (at most
     * {@code retention.batch()} jobs each, so no call blocks the server long) until one leaves
     * the bounds holding, or {@link #MAX_TRIM_CALLS} calls were made. Returns the sum. Completed
     * jobs are also trimmed as they settle (see {@link #complete}); this pass keeps cancelled and
     * dead jobs and the age bounds in check.
     */
    public TrimResult trim(String queue, Retention retention) {
        QueueKeys keys = keysOf(queue);
        List<String> args = List.of(keys.prefix(),
                Integer.toString(retention.completedKeepCount()), Long.toString(retention.completedMaxAge().toMillis()),
                Integer.toString(retention.deadKeepCount()), Long.toString(retention.deadMaxAge().toMillis()),
                Integer.toString(retention.batch()));
        TrimResult sum = new TrimResult(queue, 0, 0, 0);
        for (int call = 0; call < MAX_TRIM_CALLS; call++) {
            TrimResult one = Replies.trimmed(queue, scripts.run(Script.TRIM, keys, null, args));
            sum = new TrimResult(queue, sum.completed() + one.completed(), sum.cancelled() + one.cancelled(), sum.dead() + one.dead());
            if (one.total() < retention.batch()) {
                break;
            }
        }
        return sum;
    }

    /** Stops claims on the queue (enqueue, settlement and reaping go on). Returns true. */
    public boolean pause(String queue) {
        return setPaused(queue, true);
    }

    /** Lets claims resume. Returns false (not paused). */
    public boolean resume(String queue) {
        return setPaused(queue, false);
    }

    private boolean setPaused(String queue, boolean paused) {
        QueueKeys keys = keysOf(queue);
        return Replies.paused(scripts.run(Script.SET_PAUSED, keys, null, List.of(paused ? "1" : "0")));
    }

    /**
     * Sets the queue's caps and rate limits, replacing the ones it had ({@link QueueLimits#NONE}
     * clears them). They hold from the next claim on, on every server; lanes a lower limit now
     * holds wait as pending, lanes a raised or cleared limit frees are served again at once.
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public QueueLimits setLimits(String queue, QueueLimits limits) {
        setLimits(queue, limits, LimitsSource.API);
        return limits;
    }

    /**
     * Sets the limits a server's configuration declares for the queue, unless configuration
     * applied these very limits before: then limits set over the API since stand (an admin's
     * change during an incident survives a restart) until the configuration itself changes.
     * Returns true when the limits were applied.
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public boolean applyConfiguredLimits(String queue, QueueLimits limits) {
        return !"KEPT".equals(setLimits(queue, limits, LimitsSource.CONFIG));
    }

    /** Runs set-limits; answers its status (OK, or KEPT for configured limits applied before). */
    private String setLimits(String queue, QueueLimits limits, LimitsSource source) {
        QueueKeys keys = keysOf(queue);
        Objects.requireNonNull(limits, "limits").check();
        List<String> args = List.of(keys.prefix(),
                limits.maxActive().map(String::valueOf).orElse(""),
                limits.rate().map(r -> Integer.toString(r.starts())).orElse(""),
                limits.rate().map(r -> Long.toString(r.window().toMillis())).orElse(""),
                limits.laneMaxActive().map(String::valueOf).orElse(""),
                limits.laneRate().map(r -> Integer.toString(r.starts())).orElse(""),
                limits.laneRate().map(r -> Long.toString(r.window().toMillis())).orElse(""),
                source.wireName());
        return Replies.limitsSet(scripts.run(Script.SET_LIMITS, keys, null, args));
    }

    /**
     * The queue's caps and rate limits as the claim reads them now, and which set them.
     *
     * @param source empty while no limits were ever set
     */
    public record LimitsInForce(QueueLimits limits, Optional<LimitsSource> source) {
    }

    /** The queue's caps and rate limits as the claim reads them now. */
    public QueueLimits limits(String queue) {
        return limitsInForce(queue).limits();
    }

    /** The limits and their source, in one read. */
    public LimitsInForce limitsInForce(String queue) {
        QueueKeys keys = keysOf(queue);
        List<String> f = read(() -> redis.hmget(keys.meta(), "max_active", "rate_max", "rate_window_ms", "lane_max_active",
                "lane_rate_max", "lane_rate_window_ms", "limits_source"));
        return new LimitsInForce(new QueueLimits(Optional.ofNullable(f.get(0)).map(Integer::valueOf), rate(f.get(1), f.get(2)),
                Optional.ofNullable(f.get(3)).map(Integer::valueOf), rate(f.get(4), f.get(5))),
                Optional.ofNullable(f.get(6)).map(LimitsSource::of));
    }

    private static Optional<QueueLimits.Rate> rate(String starts, String windowMs) {
        return starts == null || windowMs == null ? Optional.empty()
                : Optional.of(new QueueLimits.Rate(Integer.parseInt(starts), Duration.ofMillis(Long.parseLong(windowMs))));
    }

    /** One job as the queue holds it now, or empty when there is no such job. */
    public Optional<JobView> job(String queue, String jobId) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.jobId(jobId);
        return read(() -> JobPages.view(queue, jobId, redis.hgetAll(keys.job(jobId))));
    }

    /** The most jobs one page lists. */
    public static final int MAX_PAGE = 500;

    /**
     * A page of the queue's jobs in {@code state}, oldest first, after {@code cursor} (empty for
     * the first page). Reads only; a job that changes state meanwhile may show on no page.
     */
    public JobPage jobs(String queue, JobState state, Optional<String> cursor, int limit) {
        QueueKeys keys = keysOf(queue);
        RequestChecks.range("limit", limit, 1, MAX_PAGE);
        if (state == null) {
            throw new InvalidRequestException("state", "is required");
        }
        return read(() -> new JobPages(redis, keys).page(state, cursor, limit));
    }

    /**
     * Which of these jobs of {@code queue} Valkey still holds, as those very jobs (same creation
     * time), and in which state: read-only, for the effect store's retention.
     */
    public Map<String, JobState> statesOf(String queue, List<JobIdentity> jobs) {
        QueueKeys keys = keysOf(queue);
        return jobs.isEmpty() ? Map.of() : read(() -> new JobPages(redis, keys).statesOf(jobs));
    }

    /**
     * Publishes one outbox's gauges (the resource adapter's relay, once per sweep) for every node's
     * console to read: they expire after {@code ttl} unless published again, so an outbox whose
     * relays all stopped disappears instead of showing old numbers. Not queue state: plain
     * commands, no script; last writer wins (every node relaying one database computes the same).
     *
     * @param source the outbox's name (the data source's JNDI name)
     */
    public void publishOutbox(String source, long depth, long oldestAgeMs, Duration ttl) {
        String key = QueueKeys.outbox(source);
        long now = System.currentTimeMillis();
        read(() -> {
            redis.hset(key, Map.of("depth", Long.toString(depth), "oldestAgeMs", Long.toString(oldestAgeMs),
                    "updatedAtMs", Long.toString(now)));
            redis.pexpire(key, ttl.toMillis());
            return redis.zadd(QueueKeys.OUTBOXES, now, source);
        });
    }

    /** The outboxes' gauges, as last published and not yet expired, by name; forgets the expired ones. */
    public List<OutboxGauge> outboxes() {
        return read(() -> {
            List<OutboxGauge> gauges = new ArrayList<>();
            for (String source : redis.zrange(QueueKeys.OUTBOXES, 0, -1)) {
                Map<String, String> fields = redis.hgetAll(QueueKeys.outbox(source));
                if (fields.isEmpty()) {
                    redis.zrem(QueueKeys.OUTBOXES, source);
                } else {
                    gauges.add(new OutboxGauge(source, Long.parseLong(fields.getOrDefault("depth", "0")),
                            Long.parseLong(fields.getOrDefault("oldestAgeMs", "0")),
                            Long.parseLong(fields.getOrDefault("updatedAtMs", "0"))));
                }
            }
            gauges.sort(java.util.Comparator.comparing(OutboxGauge::source));
            return gauges;
        });
    }

    /** A plain read (no script): a server that cannot be reached is the queue's unavailability, as for scripts. */
    private static QueueKeys keysOf(String queue) {
        return new QueueKeys(RequestChecks.queueName(queue));
    }

    private static QueueKeys keysOf(Lease lease) {
        if (lease == null) {
            throw new InvalidRequestException("lease", "is required");
        }
        RequestChecks.jobId(lease.jobId());
        RequestChecks.range("token", lease.token(), 1, Long.MAX_VALUE);
        RequestChecks.range("jobCreatedMs", lease.jobCreatedMs(), 0, Long.MAX_VALUE);
        return keysOf(lease.queue());
    }

    private static String truncateError(String error) {
        String text = error == null || error.isBlank() ? "(no message)" : error;
        return text.length() <= MAX_ERROR_CHARS ? text : text.substring(0, MAX_ERROR_CHARS) + "…";
    }
}
