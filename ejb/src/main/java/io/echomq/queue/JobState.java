package io.echomq.queue;

import java.util.Locale;

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
public enum JobState {
    PENDING,
    DELAYED,
    ACTIVE,
    COMPLETED,
    DEAD,
    CANCELLED;

    /** The name the scripts store and the API shows, e.g. {@code "pending"}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean isFinished() {
        return this == COMPLETED || this == DEAD || this == CANCELLED;
    }

    public static JobState fromWireName(String name) {
        for (JobState state : values()) {
            if (state.wireName().equals(name)) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown job state '" + name + "'");
    }
}
