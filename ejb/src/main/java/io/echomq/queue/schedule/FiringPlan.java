package io.echomq.queue.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * What one call of {@code schedule-fire} is to do for a schedule at a given server time: the
 * slots to fire, the slots skipped (how many, and the latest), and the next slot after. Made by
 * {@link #plan}, a pure function of the definition's slots, its misfire policy, the schedule's
 * state and the server time, so every server plans alike; the script checks the plan against
 * the server clock and the stored state before it acts on it.
 *
 * @param planNowMs     the server time the plan was made at (the script refuses a plan made at a time it has not reached)
 * @param fire          slots to fire, ascending
 * @param skipped       slots passed over without a job: came due while paused, or missed beyond what the policy fires
 * @param latestSkipped the latest of those, when there are any
 * @param nextSlotMs    the schedule's next slot afterwards
 */
public record FiringPlan(long planNowMs, List<Long> fire, long skipped, OptionalLong latestSkipped, long nextSlotMs) {

    /** Slots counted at most when a long outage is skipped (the count then says "at least"). */
    static final long MAX_COUNTED = 1_000_000;

    public FiringPlan {
        fire = List.copyOf(fire);
    }

    /** True when the call only plans the schedule's first slot or moves it: nothing fires, nothing is skipped. */
    public boolean advancesOnly() {
        return fire.isEmpty() && skipped == 0;
    }

    /** True when carrying the plan out would change nothing: the schedule's next slot is not due yet. */
    public boolean nothingDue(OptionalLong storedNextSlot) {
        return advancesOnly() && storedNextSlot.isPresent() && storedNextSlot.getAsLong() == nextSlotMs;
    }

    /**
     * The plan for a schedule at server time {@code nowMs}.
     *
     * <p>The slots due are those from the stored next slot (or, not yet planned, the first after
     * the anchor) up to now. Those that came due before the last resume are skipped. Those more
     * than the grace late are missed: the policy fires the latest of them (none, one, or up to
     * the limit) and skips the rest. Those within the grace are on time and all fire (at most
     * {@link Schedule#MAX_FIRES_PER_CALL} per call; the rest stay due for the next).
     *
     * @param nextSlot  the stored next slot, absent while unplanned
     * @param anchor    the time the definition was put (server clock)
     * @param resumedAt the last resume (server clock), if any
     */
    public static FiringPlan plan(ScheduleSlots slots, Misfire policy, int limit, long graceMs, OptionalLong nextSlot, long anchor,
            OptionalLong resumedAt, long nowMs) {
        long start = nextSlot.isPresent() ? nextSlot.getAsLong() : slots.next(anchor);
        if (start > nowMs) {
            return new FiringPlan(nowMs, List.of(), 0, OptionalLong.empty(), start);
        }
        long resumed = resumedAt.orElse(Long.MIN_VALUE);
        long lateLine = nowMs - graceMs;
        // Slots up to notOnTime (and from start) are either paused-over or missed.
        long notOnTime = Math.max(lateLine, resumed == Long.MIN_VALUE ? Long.MIN_VALUE : resumed - 1);

        List<Long> late = new ArrayList<>();
        long lateFrom = Math.max(start, resumed);
        int allowed = Math.min(policy.allowed(limit), Schedule.MAX_FIRES_PER_CALL);
        for (long p = lateLine + 1; late.size() < allowed; ) {
            p = slots.previous(p);
            if (p == Long.MIN_VALUE || p < lateFrom) {
                break;
            }
            late.add(0, p);
        }

        List<Long> fire = new ArrayList<>(late);
        long s = slots.next(Math.max(notOnTime, start - 1));
        while (s <= nowMs && fire.size() < Schedule.MAX_FIRES_PER_CALL) {
            fire.add(s);
            s = slots.next(s);
        }
        long nextSlotMs = s;

        long skipped = notOnTime < start ? 0 : slots.count(start, notOnTime, MAX_COUNTED) - late.size();
        OptionalLong latestSkipped = OptionalLong.empty();
        if (skipped > 0) {
            long before = late.isEmpty() ? notOnTime + 1 : late.get(0);
            latestSkipped = OptionalLong.of(slots.previous(before));
        }
        return new FiringPlan(nowMs, fire, Math.max(skipped, 0), latestSkipped, nextSlotMs);
    }
}
