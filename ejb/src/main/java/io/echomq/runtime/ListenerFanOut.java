package io.echomq.runtime;

import io.echomq.effect.EffectOutcome;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import java.time.Duration;
import io.echomq.worker.CrashPoint;
import io.echomq.worker.WorkerListener;
import jakarta.enterprise.inject.Instance;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Hands each worker event to every {@link WorkerListener} bean of the application (metrics,
 * the console). A listener that throws is logged and never disturbs the job.
 */
final class ListenerFanOut implements WorkerListener {

    private static final Logger LOG = Logger.getLogger(ListenerFanOut.class.getName());

    private final List<WorkerListener> listeners;

    ListenerFanOut(Instance<WorkerListener> beans) {
        this.listeners = beans.stream().toList();
    }

    private void each(Consumer<WorkerListener> event) {
        for (WorkerListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "worker listener " + listener.getClass().getName() + " failed", e);
            }
        }
    }

    @Override
    public void claimCall(String queue, Duration took, int jobs) {
        each(l -> l.claimCall(queue, took, jobs));
    }

    @Override
    public void claimed(ClaimedJob job) {
        each(l -> l.claimed(job));
    }

    @Override
    public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
        each(l -> l.effect(job, outcome, took));
    }

    @Override
    public void completed(ClaimedJob job) {
        each(l -> l.completed(job));
    }

    @Override
    public void completionRejected(ClaimedJob job, Rejected rejected) {
        each(l -> l.completionRejected(job, rejected));
    }

    @Override
    public void retried(ClaimedJob job, RetryOutcome outcome, String error) {
        each(l -> l.retried(job, outcome, error));
    }

    @Override
    public void leaseLost(ClaimedJob job, Rejected rejected) {
        each(l -> l.leaseLost(job, rejected));
    }

    @Override
    public void crashed(ClaimedJob job, CrashPoint point) {
        each(l -> l.crashed(job, point));
    }

    @Override
    public void abandoned(ClaimedJob job, Exception cause) {
        each(l -> l.abandoned(job, cause));
    }
}
