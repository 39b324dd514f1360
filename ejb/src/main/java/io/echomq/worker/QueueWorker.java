package io.echomq.worker;

import io.echomq.effect.EffectStore;
import io.echomq.handler.JobHandler;
import io.echomq.outbox.Outbox;
import io.echomq.queue.Leases;
import io.echomq.queue.WorkerLeases;
import io.echomq.tracing.Deliveries;
import io.echomq.tracing.JobTelemetry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The at-least-once loop for one queue: {@code concurrency} runners, each running jobs (one at a
 * time, or a batch for a batch handler). This class only dispatches: it hands out work and
 * starts and stops the runners. The pieces it wires each keep one invariant:
 * <ul>
 *   <li>{@link Turn}: one runner at a time talks to Valkey, one {@code complete-claim} round
 *       trip that acknowledges and leases for every free runner;</li>
 *   <li>{@link IdlePacer}: when that round trip may go (empty queue, failing Valkey);</li>
 *   <li>{@link RunnerWaits}: where free runners wait, only one of them on the clock;</li>
 *   <li>{@link LeaseAhead}: how many short jobs wait leased ahead of a free runner;</li>
 *   <li>{@link JobRunner}: the effect transaction, and what came of each job;</li>
 *   <li>{@link Completer}: the only owner of acknowledging, retrying and reporting;</li>
 *   <li>{@link LeaseKeeper}: heartbeats and the hard timeout of every leased job.</li>
 * </ul>
 *
 * <p>Runs on an executor it is given (the container's managed threads on an application
 * server); it owns no threads. Built by the engine assembly ({@code io.echomq.engine}).
 * Stopping stops claiming at once, lets running and already leased jobs finish and sends their
 * acknowledgements, up to a deadline; a job still running after it stops being kept alive, so
 * its lease expires and the reaper returns it to pending.
 */
public final class QueueWorker {

    private static final Logger LOG = Logger.getLogger(QueueWorker.class.getName());
    /** Longest the watching runner sleeps before it looks at the queue's state again. */
    private static final long RUNNER_WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * Longest a runner off the watch sleeps: a stop, work and the watch each wake it sooner. Only
     * a wake-up {@link RunnerWaits} failed to send would make a job wait this long.
     */
    private static final long OFF_WATCH_WAKE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Turns a stopping runner takes to send the acknowledgements left, while Valkey fails. */
    private static final int FINAL_ACKNOWLEDGEMENT_TRIES = 3;

    private final String queueName;
    private final WorkerSettings settings;
    private final String workerId;
    private final LeaseKeeper keeper;
    private final JobRunner runner;
    private final Completer completer;
    private final LeaseAhead ahead;
    private final Turn turn;

    /** Runners waiting for work that no turn has leased any for yet. */
    private final Semaphore freeRunners = new Semaphore(0);
    /** Where free runners wait; holds work leased for them by another runner's turn, never more portions than free runners. */
    private final RunnerWaits waits = new RunnerWaits();
    private final CountDownLatch stopping = new CountDownLatch(1);
    /** Counted down by each runner as it ends; null until started. */
    private volatile CountDownLatch runnersRunning;

    public QueueWorker(String queueName, JobHandler handler, WorkerLeases queue, EffectStore effects, Outbox outbox, WorkerSettings settings,
            String workerId, ScheduledExecutorService timers, FaultInjector faults, WorkerListener listener) {
        this(queueName, handler, queue, effects, outbox, settings, workerId, timers, faults, listener,
                JobTelemetry.OFF.deliveries(queueName, settings.lease(), ids -> List.of()));
    }

    /** @param deliveries traces and meters each delivery, and hears its settlement */
    public QueueWorker(String queueName, JobHandler handler, WorkerLeases queue, EffectStore effects, Outbox outbox, WorkerSettings settings,
            String workerId, ScheduledExecutorService timers, FaultInjector faults, WorkerListener listener, Deliveries deliveries) {
        WorkerListener safe = deliveries.on() ? SafeListener.of(List.of(listener, deliveries)) : SafeListener.of(listener);
        this.queueName = queueName;
        this.settings = settings;
        this.workerId = workerId;
        this.keeper = LeaseKeeper.start(timers, queue, settings, safe);
        this.runner = new JobRunner(effects, outbox, handler, settings, keeper, faults, safe, queue, deliveries);
        this.completer = new Completer(queue, settings, faults, safe);
        this.ahead = new LeaseAhead(settings.concurrency(), settings.leaseAhead() && !runner.batched());
        this.turn = new Turn(queueName, workerId,
                (acknowledgements, wanted, idleTurn) -> queue.completeAndClaim(queueName, acknowledgements, settings.lease(), wanted, workerId,
                        idleTurn),
                runner.batched() ? settings.batchSize() : 1, settings.idlePoll(), runner.batched() ? settings.batchLinger() : Duration.ZERO,
                completer, ahead, keeper, safe);
    }

    public String queueName() {
        return queueName;
    }

    /**
     * Submits the {@code concurrency} runners to {@code executor}, which needs a thread for each.
     * A runner counts as free once it runs, so an executor with fewer threads never leaves
     * leased work waiting for a runner that does not run. A worker starts once.
     */
    public synchronized void start(ExecutorService executor) {
        if (runnersRunning != null) {
            throw new IllegalStateException("worker for queue '" + queueName + "' was already started");
        }
        runnersRunning = new CountDownLatch(settings.concurrency());
        for (int i = 0; i < settings.concurrency(); i++) {
            executor.execute(this::runnerLoop);
        }
        LOG.log(Level.INFO, "worker {0} draining queue ''{1}'' with concurrency {2}, {3}, lease {4} ms",
                new Object[] {workerId, queueName, settings.concurrency(),
                        runner.batched() ? "batches of up to " + settings.batchSize() + " jobs" : "one job per transaction",
                        settings.lease().toMillis()});
    }

    /** Stops claiming at once; running and leased work goes on. Safe to call more than once, and before {@link #start}. */
    public void stopClaiming() {
        stopping.countDown();
        waits.wakeAll(settings.concurrency());
    }

    /**
     * Waits until every runner ended (its work settled and acknowledgements sent), or until
     * {@code deadlineNanos} ({@link System#nanoTime()}); past it, running jobs stop being kept
     * alive and are left to the reaper. Call {@link #stopClaiming} first.
     *
     * @return true when everything ended in time
     */
    public boolean awaitStopped(long deadlineNanos) {
        CountDownLatch running = runnersRunning;
        try {
            if (running == null || running.await(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                return true;
            }
            LOG.log(Level.WARNING, "worker {0}: jobs of queue ''{1}'' still running at the stop deadline; "
                    + "their leases will expire and the reaper will return them", new Object[] {workerId, queueName});
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            keeper.stop();
        }
    }

    /** {@link #stopClaiming}, then {@link #awaitStopped} for up to {@code grace}. */
    public boolean stop(Duration grace) {
        stopClaiming();
        return awaitStopped(System.nanoTime() + grace.toNanos());
    }

    private boolean stopping() {
        return stopping.getCount() == 0;
    }

    private void runnerLoop() {
        try {
            while (true) {
                RunningWork work = ahead.poll();
                if (work != null) {
                    refillIfLow();
                } else {
                    freeRunners.release();
                    work = awaitWork();
                }
                if (work == null) {
                    return;
                }
                run(work);
            }
        } catch (InterruptedException e) {
            // Interrupted by the executor's shutdown: treat as stop.
            Thread.currentThread().interrupt();
            stopping.countDown();
        } finally {
            sendRemainingAcknowledgements();
            runnersRunning.countDown();
        }
    }

    /** Runs one portion and settles each job as its outcome is known; the work's leases are released at the end, whatever happens. */
    private void run(RunningWork work) {
        long start = System.nanoTime();
        work.start();
        try {
            runner.run(work, work.jobs(), outcome -> {
                work.drop(outcome.job());
                completer.settle(outcome);
            });
            ahead.recordDuration(System.nanoTime() - start);
        } catch (FaultInjector.Crash crash) {
            // Like a dead process, this delivery does nothing more; its leases expire.
        } catch (RuntimeException | Error e) {
            JobRunner.rethrowIfVirtualMachineError(e);
            // The jobs stay leased until their leases expire; the reaper returns them.
            LOG.log(Level.SEVERE, "worker " + workerId + " on queue '" + queueName + "': unexpected failure", e);
        } finally {
            keeper.release(work);
        }
    }

    /**
     * Work for the calling (free) runner: handed out by another runner's turn, leased ahead, or
     * leased in a turn of its own. A runner takes a turn that is due (acknowledgements to send)
     * at once if nobody holds it; otherwise one free runner, the watcher, waits for the next
     * turn to come due and takes it, and the others sleep until a turn leases work for them or
     * the watch is handed on ({@link RunnerWaits}). Null once stopping and no work is left.
     */
    private RunningWork awaitWork() throws InterruptedException {
        boolean watching = false;
        try {
            while (true) {
                RunningWork work = waits.poll();
                if (work == null && (work = ahead.poll()) != null) {
                    // A turn topped the buffer up after this runner found it empty: it is not free any more.
                    freeRunners.tryAcquire();
                }
                if (work != null) {
                    return work;
                }
                if (stopping()) {
                    return null;
                }
                if (watching || (watching = waits.takeWatch())) {
                    work = watchForTurn();
                } else if ((work = turnIfDue()) == null) {
                    work = waits.awaitOffWatch(OFF_WATCH_WAKE_NANOS);
                }
                if (work != null) {
                    return work;
                }
            }
        } finally {
            if (watching) {
                waits.leaveWatch();
            } else {
                waits.ensureWatched();
            }
        }
    }

    /** The watcher: a turn if one is due, else a wait for work until the next is due (at most {@link #RUNNER_WAKE_NANOS}). */
    private RunningWork watchForTurn() throws InterruptedException {
        if (!turn.tryLock(RUNNER_WAKE_NANOS)) {
            return null;
        }
        long wait;
        try {
            RunningWork work = handedOutOrTurn();
            if (work != null) {
                return work;
            }
            wait = Math.min(RUNNER_WAKE_NANOS, turn.nanosUntilDue());
        } finally {
            turn.unlock();
        }
        return wait > 0 ? waits.awaitWatching(wait) : null;
    }

    /** A turn now if it is due and nobody holds it (a runner that just settled a job sends its acknowledgement); null otherwise. */
    private RunningWork turnIfDue() {
        if (!turn.tryLock()) {
            return null;
        }
        try {
            return handedOutOrTurn();
        } finally {
            turn.unlock();
        }
    }

    /** Holding the turn: work handed out meanwhile, else the work of a turn if one is due; null if neither. */
    private RunningWork handedOutOrTurn() {
        RunningWork work = waits.poll();
        return work == null && turn.due() ? takeTurn() : work;
    }

    /**
     * A turn by a runner that has its next job in hand, once the jobs leased ahead are half
     * taken, so they are topped up before a runner finds none. Skipped if another runner holds
     * the turn: that turn tops them up.
     */
    private void refillIfLow() {
        if (!ahead.low(stopping()) || !turn.tryLock()) {
            return;
        }
        try {
            if (turn.due()) {
                waits.handOut(turnForFreeRunners());
            }
        } finally {
            turn.unlock();
        }
    }

    /** A turn for a free runner, the caller: returns its portion and hands out the rest. Holding the turn. */
    private RunningWork takeTurn() {
        List<RunningWork> portions = turnForFreeRunners();
        if (portions.isEmpty()) {
            return null;
        }
        waits.handOut(portions.subList(1, portions.size()));
        return portions.get(0);
    }

    /** A round trip for every free runner; those it found no work for count as free again. Holding the turn. */
    private List<RunningWork> turnForFreeRunners() {
        boolean stopping = stopping();
        int runners = stopping ? 0 : freeRunners.drainPermits();
        List<RunningWork> portions = turn.roundTrip(runners, stopping);
        freeRunners.release(runners - portions.size());
        return portions;
    }

    /** A runner ending sends what committed, so a stop loses no acknowledgement it could send. */
    private void sendRemainingAcknowledgements() {
        turn.lock();
        try {
            for (int tries = 0; completer.hasAcknowledgements() && tries < FINAL_ACKNOWLEDGEMENT_TRIES; tries++) {
                turn.roundTrip(0, true);
            }
        } finally {
            turn.unlock();
        }
    }
}
