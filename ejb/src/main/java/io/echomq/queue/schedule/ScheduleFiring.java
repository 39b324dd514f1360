package io.echomq.queue.schedule;

import java.util.List;
import java.util.Optional;

/**
 * The answer of one {@code schedule-fire} call.
 *
 * @param nextSlotMs the schedule's next slot afterwards ({@link Status#FIRED} only)
 * @param skipped    slots passed over by this call ({@link Status#FIRED} only)
 * @param fired      each fired slot with its job
 * @param detail     why a call was refused, or the server time of a plan not yet due
 */
public record ScheduleFiring(Status status, long nextSlotMs, long skipped, List<Fired> fired, Optional<String> detail) {

    public enum Status {
        /** The plan was carried out (possibly firing nothing: the first slot planned, or only skips). */
        FIRED,
        /** Another call moved the schedule first, or it was redefined: nothing changed. */
        STALE,
        /** The schedule is paused: nothing changed. */
        PAUSED,
        /** The plan was made at a time the server clock has not reached: nothing changed. */
        NOT_DUE,
        /** The plan breaks a rule of the script (see its header): nothing changed. */
        REFUSED,
        /** No such schedule. */
        NOT_FOUND
    }

    /** One fired slot and the job it made (the slot's one job, also when it was found already made). */
    public record Fired(long slotMs, String jobId) {
    }

    public ScheduleFiring {
        fired = List.copyOf(fired);
    }

    static ScheduleFiring of(Status status, String detail) {
        return new ScheduleFiring(status, 0, 0, List.of(), Optional.ofNullable(detail));
    }
}
