package io.echomq.worker;

import io.echomq.effect.EffectContendedException;
import io.echomq.effect.EffectFailedException;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectStore;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import io.echomq.handler.PermanentJobFailure;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.Settlement;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One delivery of one job, start to settlement: the effect transaction, then the fenced
 * acknowledgement; a failed effect is reported for retry. The order is the guarantee: the
 * acknowledgement is sent only after the effect committed, so a crash in between redelivers
 * the job, and the effect store makes that redelivery skip the effect.
 */
final class JobExecution {

    private static final Logger LOG = Logger.getLogger(JobExecution.class.getName());

    private final QueueClient queue;
    private final EffectStore effects;
    private final JobHandler handler;
    private final WorkerSettings settings;
    private final ScheduledExecutorService timers;
    private final FaultInjector faults;
    private final WorkerListener listener;

    JobExecution(QueueClient queue, EffectStore effects, JobHandler handler, WorkerSettings settings,
            ScheduledExecutorService timers, FaultInjector faults, WorkerListener listener) {
        this.queue = queue;
        this.effects = effects;
        this.handler = handler;
        this.settings = settings;
        this.timers = timers;
        this.faults = faults;
        this.listener = listener;
    }

    /** Runs the job on the calling thread; returns when it is settled or abandoned. */
    void run(ClaimedJob job) {
        listener.claimed(job);
        Heartbeat heartbeat = Heartbeat.start(timers, queue, job, settings, listener);
        Thread runner = Thread.currentThread();
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> watchdog = timers.schedule(() -> {
            // Past the hard timeout the job stops being kept alive, whatever the handler does.
            timedOut.set(true);
            heartbeat.stop();
            runner.interrupt();
        }, settings.jobTimeout().toMillis(), TimeUnit.MILLISECONDS);
        try {
            faults.at(CrashPoint.LEASE, job);
            long effectStart = System.nanoTime();
            EffectOutcome outcome = effects.apply(job.lease(), tx -> handler.handle(
                    new JobContext(job.lease().queue(), job.id(), job.attempt(), job.lane(), job.payload(), tx)));
            listener.effect(job, outcome, Duration.ofNanos(System.nanoTime() - effectStart));
            faults.at(CrashPoint.EFFECT, job);
            watchdog.cancel(false);
            heartbeat.stop();
            faults.at(CrashPoint.ACK, job);
            acknowledge(job);
            faults.at(CrashPoint.DONE, job);
        } catch (SimulatedCrash crash) {
            listener.crashed(job, crash.point());
        } catch (EffectFailedException failed) {
            Throwable cause = failed.getCause();
            String error = timedOut.get() ? "timed out after " + settings.jobTimeout().toMillis() + " ms: " + cause : String.valueOf(cause);
            retry(job, error, cause instanceof PermanentJobFailure && !timedOut.get());
        } catch (EffectContendedException contended) {
            retry(job, contended.getMessage(), false);
        } catch (QueueUnavailableException unavailable) {
            listener.abandoned(job, unavailable);
        } catch (RuntimeException unexpected) {
            // The database is down, a connection broke mid-transaction, ...: the effect did not
            // commit (or its outcome is unknown, which the effect store makes safe to retry).
            retry(job, unexpected.toString(), false);
        } finally {
            watchdog.cancel(false);
            heartbeat.stop();
            // A watchdog that fired late must not leak its interrupt into the next job.
            Thread.interrupted();
        }
    }

    private void acknowledge(ClaimedJob job) {
        Settlement settlement = queue.complete(job.lease());
        if (settlement instanceof Rejected rejected) {
            // The effect is recorded; whoever holds the job now will find it and complete it.
            listener.completionRejected(job, rejected);
            LOG.log(Level.INFO, "job {0}: {1}", new Object[] {job.id(), rejected.describe()});
        } else {
            listener.completed(job);
        }
    }

    private void retry(ClaimedJob job, String error, boolean terminal) {
        try {
            RetryOutcome outcome = queue.retry(job.lease(), error, settings.backoff(), terminal);
            listener.retried(job, outcome, error);
        } catch (QueueUnavailableException e) {
            listener.abandoned(job, e);
        }
    }
}
