package io.echomq.worker;

import io.echomq.effect.EffectOutcome;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.WorkerLeases;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.Settlement;
import io.echomq.queue.StopOutcome;
import io.echomq.queue.FailureKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one owner of what happens to a job after its run: reports the effect, then acknowledges
 * a job whose effect is in (batched: the next turn's {@code complete-claim} carries every
 * acknowledgement waiting), or sends a failed job to {@code retry}, which delays it, returns it
 * to pending or dead-letters it. Every Valkey write it makes is fenced by the job's lease.
 *
 * <p>Invariants: an acknowledgement is queued only for a job whose effect committed; a job is
 * reported completed only once Valkey accepted its acknowledgement; listener failures never
 * change a job's fate (the listener is a {@link SafeListener}).
 */
final class Completer {

    private static final Logger LOG = Logger.getLogger(Completer.class.getName());

    private final WorkerLeases queue;
    private final WorkerSettings settings;
    private final FaultInjector faults;
    private final WorkerListener listener;
    /** Jobs whose effect is in, waiting for the next turn to acknowledge them. Added by runners, taken by the turn. */
    private final Queue<ClaimedJob> toAcknowledge = new ConcurrentLinkedQueue<>();

    Completer(WorkerLeases queue, WorkerSettings settings, FaultInjector faults, WorkerListener listener) {
        this.queue = queue;
        this.settings = settings;
        this.faults = faults;
        this.listener = listener;
    }

    /**
     * Settles one job's outcome, on the thread of the runner that ran it.
     *
     * @throws FaultInjector.Crash the delivery died on its way to the acknowledgement
     */
    void settle(JobOutcome outcome) {
        if (outcome instanceof JobOutcome.Done done) {
            reportEffect(done);
            faults.effectCommitted(done.job());
            faults.acknowledging(done.job());
            toAcknowledge.add(done.job());
            faults.acknowledgementQueued(done.job());
        } else if (outcome instanceof JobOutcome.Stopped stopped) {
            stop(stopped);
        } else {
            retry((JobOutcome.Failed) outcome);
        }
    }

    boolean hasAcknowledgements() {
        return !toAcknowledge.isEmpty();
    }

    /** Up to {@code max} acknowledgements for one turn to send, oldest first. */
    List<ClaimedJob> takeAcknowledgements(int max) {
        List<ClaimedJob> jobs = new ArrayList<>();
        for (ClaimedJob job; jobs.size() < max && (job = toAcknowledge.poll()) != null; ) {
            jobs.add(job);
        }
        return jobs;
    }

    /** Valkey answered the turn that carried these acknowledgements: one settlement per job, in order. */
    void acknowledged(List<ClaimedJob> jobs, List<Settlement> settlements) {
        for (int i = 0; i < jobs.size(); i++) {
            ClaimedJob job = jobs.get(i);
            if (settlements.get(i) instanceof Rejected rejected) {
                // The effect is recorded; whoever holds the job now will find it and complete it.
                listener.completionRejected(job, rejected);
                LOG.log(Level.INFO, "job {0}: {1}", new Object[] {job.id(), rejected.describe()});
            } else {
                listener.completed(job);
            }
        }
    }

    /**
     * The turn that carried these acknowledgements failed: they wait for a later one. Their
     * leases may expire meanwhile; the effect store makes the redelivery harmless.
     */
    void notSent(List<ClaimedJob> jobs) {
        toAcknowledge.addAll(jobs);
    }

    /**
     * A job whose handler was skipped because another job with its idempotency key applied the
     * effect is logged too: it is a resubmission Valkey did not recognise (the first job was
     * trimmed, or lost in a failover), and operators should see it.
     */
    private void reportEffect(JobOutcome.Done done) {
        if (done.effect() instanceof EffectOutcome.AlreadyApplied skipped && skipped.byAnotherJob()) {
            LOG.log(Level.INFO, "queue ''{0}'', {1}", new Object[] {done.job().lease().queue(), skipped.describe()});
        }
        listener.effect(done.job(), done.effect(), done.took());
    }

    /**
     * Ends a job whose cancel was requested and whose attempt rolled back as cancelled, through
     * its fenced lease. Should the queue say no cancel was requested (it never unasks one while
     * the job is active, so only an older server could), the attempt is retried as a failure.
     */
    private void stop(JobOutcome.Stopped stopped) {
        ClaimedJob job = stopped.job();
        try {
            StopOutcome outcome = queue.stop(job.lease(), stopped.reason());
            if (outcome instanceof StopOutcome.NotRequested) {
                retry(new JobOutcome.Failed(job, stopped.reason(), FailureKind.RETRYABLE));
                return;
            }
            listener.stopped(job, outcome);
        } catch (QueueUnavailableException e) {
            // The lease expires and the reaper returns the job, its cancel still requested.
            listener.abandoned(job, e);
        }
    }

    private void retry(JobOutcome.Failed failed) {
        ClaimedJob job = failed.job();
        try {
            RetryOutcome outcome = queue.retry(job.lease(), failed.error(), settings.backoff(), failed.kind());
            listener.retried(job, outcome, failed.error());
        } catch (QueueUnavailableException e) {
            // The lease expires and the reaper returns the job; its attempt is spent either way.
            listener.abandoned(job, e);
        }
    }
}
