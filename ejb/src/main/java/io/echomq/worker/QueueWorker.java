package io.echomq.worker;

import io.echomq.effect.EffectStore;
import io.echomq.handler.JobHandler;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The at-least-once loop for one queue: {@code concurrency} drain loops, each claiming a job,
 * running it through the effect store and acknowledging it with the lease's token.
 *
 * <p>Runs on executors it is given (plain ones in tests and the standalone worker, the
 * container's managed executors on an application server); it owns no threads. Stopping
 * stops claiming at once and waits for running jobs up to a grace period; a job still running
 * after it keeps its lease only until the lease expires, then the reaper returns it to pending.
 */
public final class QueueWorker {

    private static final Logger LOG = Logger.getLogger(QueueWorker.class.getName());

    private final String queueName;
    private final QueueClient queue;
    private final WorkerSettings settings;
    private final String workerId;
    private final JobExecution execution;
    private final WorkerListener listener;

    /** Counted down once, by stop: wakes idle loops and ends them. */
    private final CountDownLatch stopping = new CountDownLatch(1);
    /** Counted down by each drain loop as it ends; null until started. */
    private volatile CountDownLatch loopsRunning;

    public QueueWorker(String queueName, JobHandler handler, QueueClient queue, EffectStore effects,
            WorkerSettings settings, String workerId, ScheduledExecutorService timers, FaultInjector faults,
            WorkerListener listener) {
        this.queueName = queueName;
        this.queue = queue;
        this.settings = settings;
        this.workerId = workerId;
        this.listener = listener;
        this.execution = new JobExecution(queue, effects, handler, settings, timers, faults, listener);
    }

    public String queueName() {
        return queueName;
    }

    /** Submits the drain loops to {@code executor}. A worker starts once. */
    public synchronized void start(ExecutorService executor) {
        if (loopsRunning != null) {
            throw new IllegalStateException("worker for queue '" + queueName + "' was already started");
        }
        loopsRunning = new CountDownLatch(settings.concurrency());
        for (int i = 0; i < settings.concurrency(); i++) {
            executor.execute(this::drain);
        }
        LOG.log(Level.INFO, "worker {0} draining queue ''{1}'' with concurrency {2}, lease {3} ms",
                new Object[] {workerId, queueName, settings.concurrency(), settings.lease().toMillis()});
    }

    /**
     * Stops claiming and waits up to {@code grace} for running jobs to settle. Safe to call
     * more than once, and before {@link #start}.
     *
     * @return true when every loop ended within the grace period
     */
    public boolean stop(Duration grace) {
        stopping.countDown();
        CountDownLatch running = loopsRunning;
        if (running == null) {
            return true;
        }
        try {
            if (running.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
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

    private void drain() {
        try {
            while (!stopping()) {
                drainOnce();
            }
        } finally {
            loopsRunning.countDown();
        }
    }

    /** One claim and its job. Whatever goes wrong is logged and the loop goes on. */
    private void drainOnce() {
        try {
            List<ClaimedJob> claimed = claimOne();
            if (claimed.isEmpty()) {
                idle();
            } else {
                execution.run(claimed.get(0));
            }
        } catch (OutOfMemoryError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            // The job, if any, stays leased until its lease expires; the reaper returns it.
            LOG.log(Level.SEVERE, "worker " + workerId + " on queue '" + queueName + "': unexpected failure", e);
        }
    }

    private List<ClaimedJob> claimOne() {
        try {
            long start = System.nanoTime();
            List<ClaimedJob> claimed = queue.claim(queueName, settings.lease(), 1, workerId);
            listener.claimCall(queueName, Duration.ofNanos(System.nanoTime() - start), claimed.size());
            return claimed;
        } catch (QueueUnavailableException e) {
            LOG.log(Level.WARNING, "worker {0}: cannot claim from queue ''{1}'': {2}", new Object[] {workerId, queueName, e.getMessage()});
            return List.of();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "worker " + workerId + ": claim on queue '" + queueName + "' failed", e);
            return List.of();
        }
    }

    private void idle() {
        try {
            stopping.await(settings.idlePoll().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            // Interrupted by the executor's shutdown: treat as stop.
            Thread.currentThread().interrupt();
            stopping.countDown();
        }
    }
}
