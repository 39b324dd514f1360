package io.echomq.maintenance;

/**
 * What maintenance changed: by one duty on one queue, or summed over a whole pass.
 *
 * @param effectRowsDeleted effect rows past their retention whose jobs are finished
 * @param scheduledJobs     jobs recurring schedules made (one per slot fired)
 */
public record Pass(int reapedToPending, int reapedToDead, int trimmed, int reconciled, int effectRowsDeleted, int scheduledJobs) {

    static final Pass NOTHING = new Pass(0, 0, 0, 0, 0, 0);

    Pass plus(Pass other) {
        return new Pass(reapedToPending + other.reapedToPending, reapedToDead + other.reapedToDead,
                trimmed + other.trimmed, reconciled + other.reconciled, effectRowsDeleted + other.effectRowsDeleted,
                scheduledJobs + other.scheduledJobs);
    }

    /** Jobs moved, made or deleted, and effect rows deleted, in all. */
    public int changes() {
        return reapedToPending + reapedToDead + trimmed + reconciled + effectRowsDeleted + scheduledJobs;
    }
}
