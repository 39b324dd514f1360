package io.echomq.maintenance;

/**
 * What maintenance changed: by one duty on one queue, or summed over a whole pass. Each duty
 * makes its own kind of change, so each has a factory named for it.
 *
 * @param reapedToPending   expired leases whose jobs went back to pending
 * @param reapedToDead      expired leases whose jobs had no attempts left
 * @param reapedToCancelled expired leases whose jobs' cancel had been requested
 * @param trimmed           finished jobs deleted past their retention
 * @param reconciled        jobs completed by the reconciler (their effect had committed)
 * @param effectRowsDeleted effect rows past their retention whose jobs are finished
 * @param scheduledJobs     jobs recurring schedules made (one per slot fired)
 * @param flowEdges         flow edges carried: children's settlement notices applied to their parents,
 *                          missing children made by the repair, children of failed parents cancelled
 */
public record Pass(int reapedToPending, int reapedToDead, int reapedToCancelled, int trimmed, int reconciled,
                   int effectRowsDeleted, int scheduledJobs, int flowEdges) {

    static final Pass NOTHING = new Pass(0, 0, 0, 0, 0, 0, 0, 0);

    static Pass flowEdges(int edges) {
        return new Pass(0, 0, 0, 0, 0, 0, 0, edges);
    }

    static Pass reaped(int toPending, int toDead, int toCancelled) {
        return new Pass(toPending, toDead, toCancelled, 0, 0, 0, 0, 0);
    }

    static Pass trimmed(int jobs) {
        return new Pass(0, 0, 0, jobs, 0, 0, 0, 0);
    }

    static Pass reconciled(int jobs) {
        return new Pass(0, 0, 0, 0, jobs, 0, 0, 0);
    }

    static Pass effectRowsDeleted(int rows) {
        return new Pass(0, 0, 0, 0, 0, rows, 0, 0);
    }

    static Pass scheduled(int jobs) {
        return new Pass(0, 0, 0, 0, 0, 0, jobs, 0);
    }

    Pass plus(Pass other) {
        return new Pass(reapedToPending + other.reapedToPending, reapedToDead + other.reapedToDead,
                reapedToCancelled + other.reapedToCancelled, trimmed + other.trimmed, reconciled + other.reconciled,
                effectRowsDeleted + other.effectRowsDeleted, scheduledJobs + other.scheduledJobs, flowEdges + other.flowEdges);
    }

    /** Jobs moved, made or deleted, and effect rows deleted, in all. */
    public int changes() {
        return reapedToPending + reapedToDead + reapedToCancelled + trimmed + reconciled + effectRowsDeleted + scheduledJobs + flowEdges;
    }
}
