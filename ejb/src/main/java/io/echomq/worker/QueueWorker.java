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
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The at-least-once loop for one queue: {@code concurrency} runners, each running jobs (one at
 * a time, or a batch for a batch handler) through the effect store.
 *
 * <p>Talking to Valkey is a role, not a thread: a runner that needs work and finds none waiting
 * takes the role, if nobody holds it, for one <em>turn</em>: one {@code complete-claim} script
 * call that acknowledges every job whose effect committed since the last turn and leases work
 * for every free runner (itself included). It keeps one portion and hands out the rest. With
 * one runner that is one round trip per job and no hand-off between threads; with many, one
 * round trip settles and fetches for all of them (group commit).
 *
 * <p>Short jobs are leased ahead: while jobs of one at a time take under {@link #SHORT_JOB_NANOS}
 * on average, a turn also keeps up to {@link #AHEAD_PER_RUNNER} jobs per runner waiting in a local
 * buffer, and a runner that takes the last half of it takes a turn at once, while the others
 * still draw from it. So the round trip to Valkey overlaps other runners' transactions instead
 * of stalling one each time. Longer jobs, and batches, are leased only for a free runner: a job
 * buffered behind a long one would wait while another worker idles.
 *
 * <p>Runs on an executor it is given (plain in tests and the standalone worker, the container's
 * managed executor on an application server); it owns no threads. Stopping stops claiming at
 * once, lets running jobs finish and sends their acknowledgements, up to a grace period; a job
 * still running after it keeps its lease only until the lease expires, then the reaper returns
 * it to pending.
 */
public final class QueueWorker {

    private static final Logger LOG = Logger.getLogger(QueueWorker.class.getName());
    /** The first wait after a claim found nothing; it doubles up to the idle poll while the queue stays empty. */
    private static final long FIRST_IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Longest a waiting runner sleeps before it looks at the queue's state again. */
    private static final long RUNNER_WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * Jobs shorter than this on average are leased ahead: a buffered job then waits for a runner
     * about as long as two such jobs take, no longer than another worker's idle poll would.
     */
    private static final long SHORT_JOB_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /**
     * Short jobs leased ahead, per runner. Two rather than one: the buffer is topped up when half
     * empty, so each runner still has about one job waiting then, and one round trip serves about
     * one job per runner (measured: 20 % more jobs/s at concurrency 4 than with one).
     */
    private static final int AHEAD_PER_RUNNER = 2;
    /** Weight of the newest job in the running mean of job durations: 1/8. */
    private static final int MEAN_WEIGHT_SHIFT = 3;

    private final String queueName;
    private final QueueClient queue;
    private final WorkerSettings settings;
    private final String workerId;
    private final WorkerListener listener;
    private final LeaseKeeper keeper;
    private final JobExecution execution;

    /** Runners waiting for work that no turn has claimed any for yet. */
    private final Semaphore freeRunners = new Semaphore(0);
    /** Work (one job, or a batch) claimed for a free runner; never more portions than free runners. */
    private final BlockingQueue<List<ClaimedJob>> ready = new LinkedBlockingQueue<>();
    /** Short jobs leased ahead, for whichever runner finishes next; at most {@link #AHEAD_PER_RUNNER} per runner. */
    private final Queue<List<ClaimedJob>> ahead = new ConcurrentLinkedQueue<>();
    /** Jobs whose effect committed, waiting for the next turn to acknowledge them. */
    private final Queue<ClaimedJob> committed = new ConcurrentLinkedQueue<>();
    /** Held by the runner taking a turn. */
    private final ReentrantLock turn = new ReentrantLock();
    /** No turn before this (nanoTime) while Valkey fails. Guarded by {@link #turn}. */
    private long backOffUntil = System.nanoTime();
    /** No claim before this (nanoTime) while the queue is empty, unless there are acknowledgements to send. Guarded by {@link #turn}. */
    private long nextClaimAt = System.nanoTime();
    /** Guarded by {@link #turn}. */
    private long idleWaitNanos = FIRST_IDLE_WAIT_NANOS;

    /** Running mean of how long a portion of work takes its runner; MAX_VALUE until one ran. Updated racily, read as a hint. */
    private volatile long meanWorkNanos = Long.MAX_VALUE;

    private final CountDownLatch stopping = new CountDownLatch(1);
    /** Counted down by each runner as it ends; null until started. */
    private volatile CountDownLatch runnersRunning;

    public QueueWorker(String queueName, JobHandler handler, QueueClient queue, EffectStore effects,
            WorkerSettings settings, String workerId, ScheduledExecutorService timers, FaultInjector faults,
            WorkerListener listener) {
        this.queueName = queueName;
        this.queue = queue;
        this.settings = settings;
        this.workerId = workerId;
        this.listener = listener;
        this.keeper = LeaseKeeper.start(timers, queue, settings, listener);
        this.execution = new JobExecution(queue, effects, handler, settings, keeper, faults, listener, this::acknowledgeLater);
    }

    public String queueName() {
        return queueName;
    }

    /**
     * Submits the {@code concurrency} runners to {@code executor}, which needs a thread for each.
     * A runner counts as free once it runs, so an executor with fewer threads never leaves
     * claimed work waiting for a runner that does not run. A worker starts once.
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
        stopping.countDown();
        CountDownLatch running = runnersRunning;
        try {
            if (running == null || running.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                keeper.stop();
                return true;
            }
            LOG.log(Level.WARNING, "worker {0}: jobs of queue ''{1}'' still running after the {2} ms grace period; "
                    + "their leases will expire and the reaper will return them", new Object[] {workerId, queueName, grace.toMillis()});
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private boolean stopping() {
        return stopping.getCount() == 0;
    }

    /** Called by a runner once a job's effect committed (or was found applied earlier). */
    private void acknowledgeLater(ClaimedJob job) {
        committed.add(job);
    }

    private void runnerLoop() {
        try {
            while (true) {
                List<ClaimedJob> work = ahead.poll();
                if (work != null) {
                    refillIfLow();
                } else {
                    freeRunners.release();
                    work = awaitWork();
                }
                if (work == null) {
                    return;
                }
                long start = System.nanoTime();
                try {
                    execution.run(work);
                    recordDuration(System.nanoTime() - start);
                } catch (OutOfMemoryError e) {
                    throw e;
                } catch (RuntimeException | Error e) {
                    // The jobs stay leased until their leases expire; the reaper returns them.
                    LOG.log(Level.SEVERE, "worker " + workerId + " on queue '" + queueName + "': unexpected failure", e);
                }
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

    private void recordDuration(long nanos) {
        long mean = meanWorkNanos;
        meanWorkNanos = mean == Long.MAX_VALUE ? nanos : mean + ((nanos - mean) >> MEAN_WEIGHT_SHIFT);
    }

    /** How many portions a turn keeps leased ahead: {@link #AHEAD_PER_RUNNER} per runner while jobs are short, else none. */
    private int portionsAhead() {
        return !execution.batched() && !stopping() && meanWorkNanos < SHORT_JOB_NANOS ? AHEAD_PER_RUNNER * settings.concurrency() : 0;
    }

    /**
     * Work for the calling (free) runner: handed out by another runner's turn, leased ahead by
     * one, or claimed in a turn of its own. Runners that want a turn while one is under way wait
     * for it to end (it may have claimed for them); the next then sends every acknowledgement
     * added meanwhile. Null once stopping and no work is left.
     */
    private List<ClaimedJob> awaitWork() throws InterruptedException {
        while (true) {
            List<ClaimedJob> work = ready.poll();
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
            if (!turn.tryLock(RUNNER_WAKE_NANOS, TimeUnit.NANOSECONDS)) {
                continue;
            }
            long wait;
            try {
                work = ready.poll();
                if (work == null && turnDue()) {
                    work = takeTurn();
                }
                if (work != null) {
                    return work;
                }
                wait = turnDue() ? 0 : Math.min(RUNNER_WAKE_NANOS, Math.max(backOffUntil, nextClaimAt) - System.nanoTime());
            } finally {
                turn.unlock();
            }
            if (wait > 0) {
                work = ready.poll(wait, TimeUnit.NANOSECONDS);
                if (work != null) {
                    return work;
                }
            }
        }
    }

    /**
     * A turn by a runner that has its next job in hand, once the jobs leased ahead are half
     * taken, so they are topped up before a runner finds none. Skipped if another runner holds
     * the turn: that turn tops them up.
     */
    private void refillIfLow() {
        int target = portionsAhead();
        if (target == 0 || ahead.size() > target / 2 || !turn.tryLock()) {
            return;
        }
        try {
            if (turnDue()) {
                ready.addAll(turnRoundTrip());
            }
        } finally {
            turn.unlock();
        }
    }

    /** Valkey is not backing off, and there are acknowledgements to send or it is time to look for jobs. Holding {@link #turn}. */
    private boolean turnDue() {
        long now = System.nanoTime();
        return now - backOffUntil >= 0 && (!committed.isEmpty() || now - nextClaimAt >= 0);
    }

    /**
     * A turn for a free runner, the caller: returns its portion and hands out the rest. Holding
     * {@link #turn}.
     */
    private List<ClaimedJob> takeTurn() {
        List<List<ClaimedJob>> portions = turnRoundTrip();
        if (portions.isEmpty()) {
            return null;
        }
        ready.addAll(portions.subList(1, portions.size()));
        return portions.get(0);
    }

    /**
     * One round trip: acknowledges what committed, claims work for every free runner and tops
     * up the jobs leased ahead. Returns the free runners' portions (fewer if the queue ran
     * short; those runners count as free again). Holding {@link #turn}.
     */
    private List<List<ClaimedJob>> turnRoundTrip() {
        List<ClaimedJob> acknowledgements = drainCommitted();
        int runners = stopping() ? 0 : freeRunners.drainPermits();
        int batch = execution.batched() ? settings.batchSize() : 1;
        int toLeaseAhead = Math.max(0, portionsAhead() - ahead.size());
        int wanted = Math.min((runners + toLeaseAhead) * batch, QueueClient.MAX_CLAIM_JOBS);
        CompletedAndClaimed result;
        try {
            long start = System.nanoTime();
            result = queue.completeAndClaim(queueName, acknowledgements.stream().map(ClaimedJob::lease).toList(),
                    settings.lease(), wanted, workerId);
            if (wanted > 0) {
                listener.claimCall(queueName, Duration.ofNanos(System.nanoTime() - start), result.claimed().size());
            }
        } catch (RuntimeException e) {
            // Kept for a later turn: their leases may expire meanwhile; the effect store makes the redelivery harmless.
            committed.addAll(acknowledgements);
            freeRunners.release(runners);
            backOffUntil = System.nanoTime() + settings.idlePoll().toNanos();
            if (e instanceof QueueUnavailableException) {
                LOG.log(Level.WARNING, "worker {0} on queue ''{1}'': {2}", new Object[] {workerId, queueName, e.getMessage()});
            } else {
                LOG.log(Level.SEVERE, "worker " + workerId + ": claim on queue '" + queueName + "' failed", e);
            }
            return List.of();
        }
        report(acknowledgements, result.settlements());
        List<List<ClaimedJob>> portions = portions(result.claimed(), runners);
        pace(wanted, portions.isEmpty());
        // Free runners first; what is left over was leased ahead.
        int forRunners = Math.min(runners, portions.size());
        ahead.addAll(portions.subList(forRunners, portions.size()));
        freeRunners.release(runners - forRunners);
        return portions.subList(0, forRunners);
    }

    /** After a claim that found nothing, wait longer and longer (up to the idle poll) before the next. */
    private void pace(int wanted, boolean foundNothing) {
        if (wanted == 0) {
            return;
        }
        if (foundNothing) {
            nextClaimAt = System.nanoTime() + idleWaitNanos;
            idleWaitNanos = Math.min(idleWaitNanos * 2, settings.idlePoll().toNanos());
        } else {
            nextClaimAt = System.nanoTime();
            idleWaitNanos = FIRST_IDLE_WAIT_NANOS;
        }
    }

    /** A runner ending sends what committed, so a stop loses no acknowledgement it could send. */
    private void sendRemainingAcknowledgements() {
        turn.lock();
        try {
            for (int tries = 0; !committed.isEmpty() && tries < 3; tries++) {
                takeTurn();
            }
        } finally {
            turn.unlock();
        }
    }

    private List<ClaimedJob> drainCommitted() {
        List<ClaimedJob> jobs = new ArrayList<>();
        for (ClaimedJob job; jobs.size() < QueueClient.MAX_CLAIM_JOBS && (job = committed.poll()) != null; ) {
            jobs.add(job);
        }
        return jobs;
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

    /** The claimed jobs in at most {@code runners} even portions: single jobs, or batches for a batch handler. */
    private List<List<ClaimedJob>> portions(List<ClaimedJob> claimed, int runners) {
        if (claimed.isEmpty()) {
            return List.of();
        }
        int count = execution.batched() ? Math.min(runners, (claimed.size() + settings.batchSize() - 1) / settings.batchSize())
                : claimed.size();
        List<List<ClaimedJob>> portions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            portions.add(claimed.subList(claimed.size() * i / count, claimed.size() * (i + 1) / count));
        }
        return portions;
    }
}
