package io.echomq.queue;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.limits.QueueLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The moves no worker makes: an operator's (cancel, promote, reschedule, remove, requeue, pause,
 * limits) and the maintenance duties' (reap, reconcile, trim). Each is one script, so it goes
 * through the same state machine as the workers and cannot make an illegal transition; a job in
 * a state the move does not apply to is refused and left as it is. Thread-safe; obtained from
 * {@link QueueClient#admin()}.
 */
public final class QueueAdmin {

    private final ScriptRunner scripts;
    /** The latest a rescheduled job may be due, counted from the server's now. */
    private final Duration maxDelay;

    /** A queue's keys after checking its name: the queue's own, or one shard's for a shard's client (docs/SHARDING.md). */
    private final Function<String, QueueKeys> keysOf;

    QueueAdmin(ScriptRunner scripts, Duration maxDelay, Function<String, QueueKeys> keysOf) {
        this.scripts = scripts;
        this.maxDelay = maxDelay;
        this.keysOf = keysOf;
    }

    /** Returns up to {@code batch} jobs whose lease expired to pending (or dead). */
    public ReapResult reap(String queue, int batch) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.range("batch", batch, 1, 100_000);
        return Replies.reaped(queue, scripts.run(Script.REAP, keys, null, List.of(keys.prefix(), Integer.toString(batch))));
    }

    /**
     * Withdraws a pending or delayed job; for an active job, requests its cancel
     * ({@link ManualTransition.CancelRequested}: its worker learns it with the next heartbeat, see
     * {@link LeaseExtension.Extended#cancelRequested()}); finished jobs are refused.
     */
    public ManualTransition cancel(String queue, String jobId) {
        return Replies.cancelled(queue, jobId, runOnJob(Script.CANCEL, queue, jobId),
                "only pending, delayed, active or waiting-children jobs can be cancelled");
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
                Long.toString(RequestChecks.between("delay", delay, Duration.ZERO, maxDelay).toMillis()));
    }

    private ManualTransition reschedule(String queue, String jobId, String how, String value) {
        return Replies.rescheduled(queue, jobId, runOnJob(Script.RESCHEDULE, queue, jobId, how, value),
                "only a delayed job can be promoted or rescheduled");
    }

    /** Deletes a finished (completed, dead or cancelled) job and its history now. */
    public ManualTransition remove(String queue, String jobId) {
        return Replies.removed(queue, jobId, runOnJob(Script.REMOVE, queue, jobId), "only completed, dead or cancelled jobs can be deleted");
    }

    /** Gives a dead job a fresh budget of attempts and makes it pending again. */
    public ManualTransition requeue(String queue, String jobId) {
        return Replies.moved(queue, jobId, JobState.PENDING, runOnJob(Script.REQUEUE, queue, jobId), "only dead jobs can be requeued");
    }

    /**
     * Completes a job whose effect the caller saw committed but which is not active nor
     * completed (pending, delayed, dead or cancelled); {@code reason} stays on the job as its note.
     * {@code jobCreatedMs} is the creation time the effect row names (0 for a row that names
     * none): a job with this id but another creation time is another job and is not touched.
     */
    public ManualTransition reconcile(String queue, String jobId, long jobCreatedMs, String reason) {
        Object reply = runOnJob(Script.RECONCILE, queue, jobId, RequestChecks.errorText(reason), Long.toString(jobCreatedMs));
        return Replies.moved(queue, jobId, JobState.COMPLETED, reply, "only a job that is not active nor completed is reconciled");
    }

    /** Runs a move of one job: its arguments are the queue's key prefix, the job's id, then {@code more}. */
    private Object runOnJob(Script script, String queue, String jobId, String... more) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.jobId(jobId);
        List<String> args = new ArrayList<>(2 + more.length);
        args.add(keys.prefix());
        args.add(jobId);
        args.addAll(Arrays.asList(more));
        return scripts.run(script, keys, jobId, args);
    }

    /** The most trim calls one {@link #trim} makes: {@code MAX_TRIM_CALLS × retention.batch()} jobs at most. */
    public static final int MAX_TRIM_CALLS = 100;

    /**
     * Deletes finished jobs beyond the retention bounds: repeats bounded script calls (at most
     * {@code retention.batch()} jobs each, so no call blocks the server long) until one leaves
     * the bounds holding, or {@link #MAX_TRIM_CALLS} calls were made. Returns the sum. Completed
     * jobs are also trimmed as they settle (see {@link Leases#complete}); this pass keeps
     * cancelled and dead jobs and the age bounds in check.
     */
    public TrimResult trim(String queue, Retention retention) {
        QueueKeys keys = keysOf.apply(queue);
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

    /** The largest cap a queue's job-event stream may have. */
    public static final int MAX_EVENT_STREAM_LENGTH = 10_000_000;

    /**
     * Caps the queue's job-event stream at about {@code maxLength} entries (the scripts trim by
     * whole stream nodes, so the length stays under the cap plus one node of 100 entries), or
     * turns it off with 0 (and deletes it). It holds from the next event, on every server; the
     * stream is trimmed at once. A queue never set keeps the scripts' default, 10,000.
     * Returns the stream's length now.
     *
     * @throws InvalidRequestException naming {@code maxLength}
     */
    public long setEventStream(String queue, int maxLength) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.range("maxLength", maxLength, 0, MAX_EVENT_STREAM_LENGTH);
        return Replies.eventsSet(scripts.run(Script.SET_EVENTS, keys, null, List.of(Integer.toString(maxLength))));
    }

    private boolean setPaused(String queue, boolean paused) {
        QueueKeys keys = keysOf.apply(queue);
        return Replies.paused(scripts.run(Script.SET_PAUSED, keys, null, List.of(paused ? "1" : "0")));
    }

    /**
     * Sets the queue's caps and rate limits, replacing the ones it had ({@link QueueLimits#NONE}
     * clears them). They hold from the next claim on, on every server; lanes a lower limit
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

    /**
     * Takes or renews the lease that makes {@code holder} the one engine running the maintenance
     * duties over {@code queue} for {@code length} (server clock), unless another engine holds it.
     *
     * @param holder names the engine, unique per engine: its holding is renewed only under the same name
     */
    public MaintenanceLease holdMaintenance(String queue, String holder, Duration length) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.workerId(holder);
        RequestChecks.lease(length);
        return Replies.maintenanceLease(scripts.run(Script.MAINTENANCE_LEASE, keys, null,
                List.of(holder, "hold", Long.toString(length.toMillis()))));
    }

    /** Hands the maintenance lease back, so another engine takes it at once; true when {@code holder} held it. */
    public boolean releaseMaintenance(String queue, String holder) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.workerId(holder);
        return Replies.maintenanceLeaseReleased(scripts.run(Script.MAINTENANCE_LEASE, keys, null, List.of(holder, "release", "0")));
    }

    /** Runs set-limits; answers its status (OK, or KEPT for configured limits applied before). */
    private String setLimits(String queue, QueueLimits limits, LimitsSource source) {
        QueueKeys keys = keysOf.apply(queue);
        Objects.requireNonNull(limits, "limits").check();
        List<String> args = new ArrayList<>();
        args.add(keys.prefix());
        args.addAll(limits.wireFields());
        args.add(source.wireName());
        return Replies.limitsSet(scripts.run(Script.SET_LIMITS, keys, null, args));
    }
}
