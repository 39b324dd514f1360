package io.echomq.queue;

/**
 * The states of a job. A job is in exactly one state, held in exactly one Valkey structure.
 *
 * <pre>
 * PENDING   --claim-->            ACTIVE      (the claim mints the fencing token)
 * DELAYED   --due, at claim-->    PENDING
 * ACTIVE    --complete-->         COMPLETED
 * ACTIVE    --retry-->            DELAYED | PENDING | DEAD (attempts spent)
 * ACTIVE    --reap (lease over)-> PENDING | DEAD
 * PENDING, DELAYED --cancel-->    CANCELLED
 * DELAYED   --promote, reschedule to now--> PENDING (reschedule to later: DELAYED)
 * DEAD      --requeue-->          PENDING
 * WAITING_CHILDREN --every child settled (its mark in the parent's set)--> PENDING
 * WAITING_CHILDREN --a child with policy fail-parent ended dead, cancelled--> DEAD
 * WAITING_CHILDREN --cancel-->    CANCELLED (its unsettled children are cancelled too)
 * </pre>
 *
 * <p>A waiting parent is moved out of {@link #WAITING_CHILDREN} only by the flow relay
 * ({@code io.echomq.maintenance.FlowRelay}) applying its children's settlement notices, or by an
 * operator's cancel; retention never touches it (it is not finished), and an operator cannot
 * delete it (only finished jobs are deleted).
 */
public enum JobState implements WireName {
    PENDING,
    DELAYED,
    ACTIVE,
    COMPLETED,
    DEAD,
    CANCELLED,
    /** A flow's parent: made with its children, claimed by no worker until every child settled (docs/ARCHITECTURE.md, F1-F6). */
    WAITING_CHILDREN;

    public boolean isFinished() {
        return this == COMPLETED || this == DEAD || this == CANCELLED;
    }

    public static JobState fromWireName(String name) {
        return WireName.find(JobState.class, name).orElseThrow(() -> new IllegalArgumentException("unknown job state '" + name + "'"));
    }
}
