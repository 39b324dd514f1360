package io.echomq.maintenance;

import io.echomq.effect.EffectRecord;
import io.echomq.effect.EffectStore;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.QueueReads;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Completes jobs whose effect is in but which did not end completed: their worker died after
 * the effect and before the acknowledgement, and the job was since dead-lettered (its attempts
 * ran out while the effect was already in), delayed by a retry, or cancelled (invariant 6 in
 * docs/ARCHITECTURE.md). The effect that stands for a job is found by the effect store's one
 * rule, so a job whose handler was skipped for another job's idempotency key counts as applied
 * too. Each completed job carries a note that says why.
 *
 * <p>Walks the dead, cancelled and delayed sets a page per run with a cursor per set, paged by
 * (score, member) so that jobs sharing a score (a reaper call dead-letters many at one time) are
 * never skipped at a page boundary. Pending jobs need no run: their next claim finds the effect,
 * skips the handler and completes them.
 */
final class Reconciler implements MaintenanceDuty {

    private static final List<JobState> SCANNED = List.of(JobState.DEAD, JobState.CANCELLED, JobState.DELAYED);

    private final QueueReads reads;
    private final QueueAdmin admin;
    private final EffectStore effects;
    private final Duration interval;
    private final int batch;
    /** Where the walk of each queue's set goes on; absent at the start of a walk. Used by the maintenance thread only. */
    private final Map<String, String> cursors = new ConcurrentHashMap<>();

    Reconciler(QueueReads reads, QueueAdmin admin, EffectStore effects, Duration interval, int batch) {
        this.reads = reads;
        this.admin = admin;
        this.effects = effects;
        this.interval = interval;
        this.batch = batch;
    }

    @Override
    public String name() {
        return "reconciler";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    @Override
    public Pass runOnce(String queueName) {
        int completed = 0;
        for (JobState state : SCANNED) {
            String cursorKey = queueName + "/" + state.wireName();
            JobPage page = reads.jobs(queueName, state, Optional.ofNullable(cursors.get(cursorKey)), batch);
            // At the end of a set the walk starts over, so later additions are seen on the next one.
            page.next().ifPresentOrElse(next -> cursors.put(cursorKey, next), () -> cursors.remove(cursorKey));
            List<JobIdentity> jobs = page.jobs().stream().map(JobView::identity).toList();
            Map<String, EffectRecord> applied = effects.findFor(queueName, jobs);
            for (JobIdentity job : jobs) {
                EffectRecord effect = applied.get(job.jobId());
                if (effect != null && complete(job, effect, state)) {
                    completed++;
                }
            }
        }
        return Pass.reconciled(completed);
    }

    /** Completes the job unless it moved on meanwhile; the script refuses a job of another creation time. */
    private boolean complete(JobIdentity job, EffectRecord effect, JobState state) {
        String by = effect.isOf(job) ? "attempt " + effect.attempt()
                : "job " + effect.jobId() + " (submitted with the same idempotency key), attempt " + effect.attempt();
        String reason = "completed by the reconciler: its effect was applied by " + by + " at " + effect.appliedAt()
                + ", but the job was " + state.wireName();
        return admin.reconcile(job.queue(), job.jobId(), job.createdMs(), reason) instanceof ManualTransition.Moved;
    }
}
