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
 * </pre>
 */
public enum JobState implements WireName {
    PENDING,
    DELAYED,
    ACTIVE,
    COMPLETED,
    DEAD,
    CANCELLED;

    public boolean isFinished() {
        return this == COMPLETED || this == DEAD || this == CANCELLED;
    }

    public static JobState fromWireName(String name) {
        return WireName.find(JobState.class, name).orElseThrow(() -> new IllegalArgumentException("unknown job state '" + name + "'"));
    }
}
