package io.echomq.worker;

import io.echomq.effect.EffectOutcome;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.StopOutcome;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Hands each event to one or more listeners; a listener's failure is logged and goes no
 * further. Every listener a worker is given is wrapped in one: a metric or a console feed that
 * throws must never turn a committed job into a retry, stop an acknowledgement, or keep the
 * event from the other listeners.
 */
public final class SafeListener implements WorkerListener {

    private static final Logger LOG = Logger.getLogger(SafeListener.class.getName());

    private final List<WorkerListener> listeners;

    private SafeListener(List<WorkerListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    public static WorkerListener of(WorkerListener listener) {
        return listener instanceof SafeListener || listener == WorkerListener.NONE ? listener : new SafeListener(List.of(listener));
    }

    /** All of {@code listeners}, each shielded from the others. */
    public static WorkerListener of(List<WorkerListener> listeners) {
        return listeners.isEmpty() ? WorkerListener.NONE : new SafeListener(listeners);
    }

    private void call(Consumer<WorkerListener> event) {
        for (WorkerListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "worker listener " + listener.getClass().getName() + " failed; the job goes on", e);
            }
        }
    }

    @Override
    public void claimed(ClaimedJob job) {
        call(l -> l.claimed(job));
    }

    @Override
    public void claimCall(String queue, Duration took, int jobs) {
        call(l -> l.claimCall(queue, took, jobs));
    }

    @Override
    public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
        call(l -> l.effect(job, outcome, took));
    }

    @Override
    public void completed(ClaimedJob job) {
        call(l -> l.completed(job));
    }

    @Override
    public void completionRejected(ClaimedJob job, Rejected rejected) {
        call(l -> l.completionRejected(job, rejected));
    }

    @Override
    public void retried(ClaimedJob job, RetryOutcome outcome, String error) {
        call(l -> l.retried(job, outcome, error));
    }

    @Override
    public void stopped(ClaimedJob job, StopOutcome outcome) {
        call(l -> l.stopped(job, outcome));
    }

    @Override
    public void leaseLost(ClaimedJob job, Rejected rejected) {
        call(l -> l.leaseLost(job, rejected));
    }

    @Override
    public void abandoned(ClaimedJob job, Exception cause) {
        call(l -> l.abandoned(job, cause));
    }
}
