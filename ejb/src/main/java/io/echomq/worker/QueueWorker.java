package io.echomq.worker;

import io.echomq.effect.EffectStore;
import io.echomq.handler.JobHandler;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Lease;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Rejected;
import io.echomq.queue.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The at-least-once loop for one queue: one fetch loop that talks to Valkey and
 * {@code concurrency} runner loops that run jobs through the effect store.
 *
 * <p>The fetch loop makes one script call per turn ({@code complete-claim}): it acknowledges
 * every job whose effect committed since the last turn and leases as many new jobs as there are
 * free runners (times the batch size, for a batch handler). Jobs are leased only for a free
 * runner, so none waits leased in a local buffer while other workers starve. Runners hand their
 * acknowledgements back to the fetch loop instead of sending them: under load, one round trip
 * settles many jobs and fetches the next ones.
 *
 * <p>Runs on executors it is given (plain ones in tests and the standalone worker, the
 * container's managed executors on an application server); it owns no threads. Stopping
 * stops claiming at once, lets running jobs finish and sends their acknowledgements, up to a
 * grace period; a job still running after it keeps its lease only until the lease expires, then
 * the reaper returns it to pending.
 */
public final class QueueWorker {

    private static final Logger LOG = Logger.getLogger(QueueWorker.class.getName());
    /** The first wait after an empty claim; it doubles up to the idle poll while the queue stays empty. */
    private static final long FIRST_IDLE_WAIT_MS = 1;
    /** How often an idle runner looks at the stop signal. */
    private static final long RUNNER_WAKE_MS = 100;

    private final String queueName;
    private final QueueClient queue;
    private final WorkerSettings settings;
    private final String workerId;
    private final WorkerListener listener;
    private final LeaseKeeper keeper;
    private final JobExecution execution;

    /**
     * Runners with nothing to do; the fetch loop claims only for them. A runner adds itself
     * when it starts, so an executor with fewer threads than runners never leaves claimed work
     * waiting for a runner that does not run.
     */
    private final Semaphore freeRunners;
    /** Claimed work (one job, or a batch) waiting for a runner; never more than the free runners. */
    private final BlockingQueue<List<ClaimedJob>> ready = new LinkedBlockingQueue<>();
    /** Jobs whose effect committed, waiting for the fetch loop to acknowledge them. */
    private final Queue<ClaimedJob> committed = new ConcurrentLinkedQueue<>();
    /** Wakes the fetch loop: a runner freed up or has acknowledgements to send, or stop was called. */
    private final Semaphore wake = new Semaphore(0);

    /** Counted down once, by stop. */
    private final CountDownLatch stopping = new CountDownLatch(1);
    /** When the fetch loop stops trying to send acknowledgements (set by stop: the end of its grace period). */
    private volatile long giveUpAtNanos = Long.MAX_VALUE;
    /** Counted down by each runner as it ends; null until started. */
    private volatile CountDownLatch runnersRunning;
    /** Counted down by the fetch loop as it ends; null until started. */
    private volatile CountDownLatch fetchRunning;

    public QueueWorker(String queueName, JobHandler handler, QueueClient queue, EffectStore effects,
            WorkerSettings settings, String workerId, ScheduledExecutorService timers, FaultInjector faults,
            WorkerListener listener) {
        this.queueName = queueName;
        this.queue = queue;
        this.settings = settings;
        this.workerId = workerId;
        this.listener = listener;
        this.freeRunners = new Semaphore(0);
        this.keeper = LeaseKeeper.start(timers, queue, settings, listener);
        this.execution = new JobExecution(queue, effects, handler, settings, keeper, faults, listener, this::acknowledgeLater);
    }

    public String queueName() {
        return queueName;
    }

    /**
     * Submits the fetch loop and the runner loops to {@code executor}, which needs a thread for
     * each ({@code concurrency + 1}). A worker starts once.
     */
    public synchronized void start(ExecutorService executor) {
        if (fetchRunning != null) {
            throw new IllegalStateException("worker for queue '" + queueName + "' was already started");
        }
        runnersRunning = new CountDownLatch(settings.concurrency());
        fetchRunning = new CountDownLatch(1);
        executor.execute(this::fetchLoop);
        for (int i = 0; i < settings.concurrency(); i++) {
            executor.execute(this::runnerLoop);
        }
        LOG.log(Level.INFO, "worker {0} draining queue ''{1}'' with concurrency {2}, {3}, lease {4} ms",
                new Object[] {workerId, queueName, settings.concurrency(),
                        execution.batched() ? "batches of up to " + settings.batchSize() + " jobs" : "one job per transaction",
                        settings.lease().toMillis()});
    }

    /**
     * Stops claiming and waits up to {@code grace} for running jobs to settle and their
     * acknowledgements to be sent. Safe to call more than once, and before {@link #start}.
     *
     * @return true when everything ended within the grace period
     */
    public boolean stop(Duration grace) {
        if (!stopping()) {
            giveUpAtNanos = System.nanoTime() + grace.toNanos();
        }
        stopping.countDown();
        wake.release();
        CountDownLatch fetch = fetchRunning;
        try {
            if (fetch == null || fetch.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                return true;
            }
            LOG.log(Level.WARNING, "worker {0}: jobs of queue ''{1}'' still running after the {2} ms grace period; "
                    + "their leases will expire and the reaper will return them", new Object[] {workerId, queueName, grace.toMillis()});
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            if (fetch != null && fetch.getCount() == 0) {
                keeper.stop();
            }
        }
    }

    private boolean stopping() {
        return stopping.getCount() == 0;
    }

    /** Called by a runner once a job's effect committed (or was found applied earlier). */
    private void acknowledgeLater(ClaimedJob job) {
        committed.add(job);
        wake.release();
    }

    private void runnerLoop() {
        freeRunners.release();
        wake.release();
        try {
            while (true) {
                List<ClaimedJob> work = ready.poll(RUNNER_WAKE_MS, TimeUnit.MILLISECONDS);
                if (work == null) {
                    if (stopping()) {
                        return;
                    }
                    continue;
                }
                try {
                    execution.run(work);
                } catch (OutOfMemoryError e) {
                    throw e;
                } catch (RuntimeException | Error e) {
                    // The jobs stay leased until their leases expire; the reaper returns them.
                    LOG.log(Level.SEVERE, "worker " + workerId + " on queue '" + queueName + "': unexpected failure", e);
                } finally {
                    freeRunners.release();
                    wake.release();
                }
            }
        } catch (InterruptedException e) {
            // Interrupted by the executor's shutdown: treat as stop.
            Thread.currentThread().interrupt();
            stopping.countDown();
        } finally {
            runnersRunning.countDown();
        }
    }

    private void fetchLoop() {
        long idleWaitMs = FIRST_IDLE_WAIT_MS;
        try {
            while (!finished()) {
                wake.drainPermits();
                int runners = stopping() ? 0 : freeRunners.drainPermits();
                List<ClaimedJob> acknowledgements = drainCommitted();
                if (runners == 0 && acknowledgements.isEmpty()) {
                    wake.tryAcquire(stopping() ? RUNNER_WAKE_MS : settings.idlePoll().toMillis(), TimeUnit.MILLISECONDS);
                    continue;
                }
                int claimed = turn(acknowledgements, runners);
                if (claimed == 0 && acknowledgements.isEmpty()) {
                    wake.tryAcquire(idleWaitMs, TimeUnit.MILLISECONDS);
                    idleWaitMs = Math.min(idleWaitMs * 2, settings.idlePoll().toMillis());
                } else {
                    idleWaitMs = FIRST_IDLE_WAIT_MS;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping.countDown();
        } finally {
            fetchRunning.countDown();
        }
    }

    /** Stopped, and every runner ended and every acknowledgement was sent, or the grace period is over. */
    private boolean finished() {
        return stopping() && ((runnersRunning.getCount() == 0 && committed.isEmpty()) || System.nanoTime() - giveUpAtNanos > 0);
    }

    private List<ClaimedJob> drainCommitted() {
        List<ClaimedJob> jobs = new ArrayList<>();
        for (ClaimedJob job; jobs.size() < QueueClient.MAX_CLAIM_JOBS && (job = committed.poll()) != null; ) {
            jobs.add(job);
        }
        return jobs;
    }

    /**
     * One round trip: acknowledges {@code acknowledgements}, claims work for {@code runners}
     * free runners and hands it out. Runners left without work are freed again. When the call
     * fails, the acknowledgements are kept for the next turn (their leases may expire meanwhile;
     * the effect store makes the redelivery harmless).
     *
     * @return how many jobs were claimed
     */
    private int turn(List<ClaimedJob> acknowledgements, int runners) throws InterruptedException {
        int batch = execution.batched() ? settings.batchSize() : 1;
        int wanted = Math.min(runners * batch, QueueClient.MAX_CLAIM_JOBS);
        List<Lease> leases = acknowledgements.stream().map(ClaimedJob::lease).toList();
        CompletedAndClaimed result;
        try {
            long start = System.nanoTime();
            result = queue.completeAndClaim(queueName, leases, settings.lease(), wanted, workerId);
            if (wanted > 0) {
                listener.claimCall(queueName, Duration.ofNanos(System.nanoTime() - start), result.claimed().size());
            }
        } catch (RuntimeException e) {
            committed.addAll(acknowledgements);
            freeRunners.release(runners);
            if (e instanceof QueueUnavailableException) {
                LOG.log(Level.WARNING, "worker {0} on queue ''{1}'': {2}", new Object[] {workerId, queueName, e.getMessage()});
            } else {
                LOG.log(Level.SEVERE, "worker " + workerId + ": claim on queue '" + queueName + "' failed", e);
            }
            wake.tryAcquire(settings.idlePoll().toMillis(), TimeUnit.MILLISECONDS);
            return 0;
        }
        report(acknowledgements, result.settlements());
        int handedOut = handOut(result.claimed(), runners);
        freeRunners.release(runners - handedOut);
        return result.claimed().size();
    }

    private void report(List<ClaimedJob> acknowledged, List<Settlement> settlements) {
        for (int i = 0; i < acknowledged.size(); i++) {
            ClaimedJob job = acknowledged.get(i);
            if (settlements.get(i) instanceof Rejected rejected) {
                // The effect is recorded; whoever holds the job now will find it and complete it.
                listener.completionRejected(job, rejected);
                LOG.log(Level.INFO, "job {0}: {1}", new Object[] {job.id(), rejected.describe()});
            } else {
                listener.completed(job);
            }
        }
    }

    /** Splits the claimed jobs into at most {@code runners} even portions; returns how many runners got one. */
    private int handOut(List<ClaimedJob> claimed, int runners) {
        if (claimed.isEmpty()) {
            return 0;
        }
        int portions = execution.batched() ? Math.min(runners, (claimed.size() + settings.batchSize() - 1) / settings.batchSize())
                : claimed.size();
        for (int i = 0; i < portions; i++) {
            int from = claimed.size() * i / portions;
            int to = claimed.size() * (i + 1) / portions;
            ready.add(claimed.subList(from, to));
        }
        return portions;
    }
}
