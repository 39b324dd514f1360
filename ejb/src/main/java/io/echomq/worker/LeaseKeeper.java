package io.echomq.worker;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.LeaseExtension;
import io.echomq.queue.WorkerLeases;
import io.echomq.queue.Progress;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Rejected;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Heartbeat and hard timeout for all leased jobs of one worker, on one periodic timer task:
 * extends the leases of work whose last extension (or claim) is a heartbeat interval old,
 * whether it runs or still waits for a runner, and interrupts running work past the job
 * timeout. A job whose handler reported progress since the last tick is extended at once,
 * carrying the latest report (so progress shows within a tick, at most a second, and a handler
 * reporting often costs one heartbeat per tick at most). One task per worker rather than two timers per
 * job: at thousands of jobs a second, per-job timers would fill the scheduler's queue with
 * cancelled tasks.
 *
 * <p>Its scheduler is the engine's lease upkeep ({@code EngineThreads#leaseUpkeep}), which no task
 * that waits on the database shares: a tick waits for Valkey only, so an exhausted connection pool
 * never stops a heartbeat and lets a healthy lease expire.
 */
final class LeaseKeeper {

    private static final Logger LOG = Logger.getLogger(LeaseKeeper.class.getName());
    private static final long MIN_TICK_MS = 10;
    private static final long MAX_TICK_MS = 1_000;

    private final WorkerLeases queue;
    private final WorkerSettings settings;
    private final WorkerListener listener;
    private final Set<RunningWork> running = ConcurrentHashMap.newKeySet();
    private volatile ScheduledFuture<?> ticks;

    private LeaseKeeper(WorkerLeases queue, WorkerSettings settings, WorkerListener listener) {
        this.queue = queue;
        this.settings = settings;
        this.listener = listener;
    }

    /** Ticks at a quarter of the shorter of heartbeat interval and job timeout (10 ms to 1 s). */
    static LeaseKeeper start(ScheduledExecutorService timers, WorkerLeases queue, WorkerSettings settings,
            WorkerListener listener) {
        LeaseKeeper keeper = new LeaseKeeper(queue, settings, listener);
        long shortest = Math.min(settings.heartbeatInterval().toMillis(), settings.jobTimeout().toMillis());
        long tick = Math.max(MIN_TICK_MS, Math.min(MAX_TICK_MS, shortest / 4));
        keeper.ticks = timers.scheduleAtFixedRate(keeper::tick, tick, tick, TimeUnit.MILLISECONDS);
        return keeper;
    }

    /** Starts keeping the leases of a portion just leased; nothing runs it yet. */
    RunningWork track(Portion portion) {
        RunningWork work = new RunningWork(portion.jobs(), portion.leasedAtNanos());
        running.add(work);
        return work;
    }

    /** Keeps one job of a started work alive as work of its own, started by the calling runner. */
    RunningWork trackAlone(ClaimedJob job, RunningWork from) {
        RunningWork alone = new RunningWork(List.of(job), from.extendedNanos(), from);
        from.drop(job);
        alone.start();
        running.add(alone);
        return alone;
    }

    /** The work is settled (or abandoned): its leases are no longer kept, its timeout disarmed. */
    void release(RunningWork work) {
        running.remove(work);
        work.finish();
    }

    void stop() {
        ScheduledFuture<?> current = ticks;
        if (current != null) {
            current.cancel(false);
        }
    }

    private void tick() {
        long now = System.nanoTime();
        long timeout = settings.jobTimeout().toNanos();
        long heartbeat = settings.heartbeatInterval().toNanos();
        for (RunningWork work : running) {
            // Past the hard timeout the work stops being kept alive, whatever the handler does.
            if (work.timeOutIfPast(now, timeout)) {
                continue;
            }
            boolean beat = now - work.extendedNanos() >= heartbeat;
            if (beat) {
                work.extendedAt(now);
            }
            for (ClaimedJob job : work.leased()) {
                JobSignalSlot signals = work.signals(job);
                Progress progress = signals.takeUnsent();
                if (beat || progress != null) {
                    extend(work, job, signals, progress);
                }
            }
        }
    }

    private void extend(RunningWork work, ClaimedJob job, JobSignalSlot signals, Progress progress) {
        try {
            LeaseExtension extension = queue.extend(job.lease(), settings.lease(), progress);
            if (extension instanceof LeaseExtension.Extended extended && extended.cancelRequested()) {
                signals.requestCancel();
            }
            if (extension instanceof Rejected rejected) {
                work.drop(job);
                listener.leaseLost(job, rejected);
            }
        } catch (QueueUnavailableException e) {
            if (progress != null) {
                signals.unsentAgain(progress);
            }
            // The next beat tries again; if none gets through, the lease expires and the job is reaped.
            LOG.log(Level.WARNING, "heartbeat of job {0} on queue ''{1}'' failed: {2}",
                    new Object[] {job.id(), job.lease().queue(), e.getMessage()});
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "heartbeat of job " + job.id() + " failed unexpectedly", e);
        }
    }
}
