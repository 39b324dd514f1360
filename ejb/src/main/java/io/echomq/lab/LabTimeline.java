package io.echomq.lab;

import io.echomq.effect.EffectOutcome;
import io.echomq.lab.GuaranteesLab.Step;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.maintenance.Pass;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Rejected;
import io.echomq.worker.WorkerListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A lab run's timeline, written from what the engine's worker and reaper report as they go. */
final class LabTimeline implements WorkerListener, MaintenanceListener {

    private final List<Step> steps;
    private final AtomicInteger deliveries = new AtomicInteger();
    /** Reaps the reaper reported so far, and reap steps written. */
    private int reapsReported;
    private int reapsWritten;

    LabTimeline(List<Step> steps) {
        this.steps = steps;
    }

    int deliveries() {
        return deliveries.get();
    }

    static Step claimed(int delivery, ClaimedJob job) {
        return new Step("claimed", "delivery " + delivery + ": attempt " + job.attempt() + ", lease until " + job.leaseUntil()
                + " (server clock)");
    }

    static Step crashed(CrashPoint crash) {
        return new Step("crashed", "the worker died at " + crash.wireName()
                + "; nothing settles the job until its lease expires");
    }

    @Override
    public synchronized void claimed(ClaimedJob job) {
        int delivery = deliveries.incrementAndGet();
        // The lab's job comes back only when the reaper takes back its lease, so each delivery
        // after the first proves a reap; the worker may claim the job before the reaper's run
        // ends and reports it, and the timeline keeps the order in which things happened.
        writeReapsUpTo(delivery - 1);
        steps.add(claimed(delivery, job));
    }

    @Override
    public synchronized void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
        steps.add(outcome instanceof EffectOutcome.AlreadyApplied skipped
                ? new Step("effect skipped", "already applied by attempt " + skipped.record().attempt())
                : new Step("effect committed", "one ledger row and the job's effect record, in one transaction"));
    }

    @Override
    public synchronized void completed(ClaimedJob job) {
        steps.add(new Step("acknowledged", "complete with token " + job.attempt()));
    }

    @Override
    public synchronized void completionRejected(ClaimedJob job, Rejected rejected) {
        steps.add(new Step("acknowledgement refused", rejected.describe()));
    }

    /** The worker's delivery died at {@code point}: told by the lab's {@link SimulatedCrash}, on the worker's thread. */
    synchronized void crashedAt(CrashPoint point) {
        steps.add(crashed(point));
    }

    @Override
    public synchronized void ran(String duty, String queue, Pass pass, Duration took) {
        reapsReported += pass.reapedToPending();
        writeReapsUpTo(reapsReported);
    }

    private void writeReapsUpTo(int reaps) {
        for (; reapsWritten < reaps; reapsWritten++) {
            steps.add(new Step("reaped", "lease expired: the reaper returned the job to pending"));
        }
    }
}
