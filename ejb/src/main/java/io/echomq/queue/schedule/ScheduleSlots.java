package io.echomq.queue.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.echomq.queue.InvalidRequestException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Optional;

/**
 * A schedule's slots: the instants (ms since the epoch) at which it fires, a pure function of
 * its definition, so every server computes the same sequence and no server's clock enters it.
 * A fixed interval's slots are the multiples of the interval since the epoch (a 1 s interval
 * fires on every whole second, UTC); a cron expression's are the times it matches in its time
 * zone (cron-utils: five fields as Unix cron, six with seconds first as Spring's).
 */
public sealed interface ScheduleSlots {

    /** What {@link #next} answers when no slot follows (a cron expression that matches no more). */
    long NO_SLOT = Long.MAX_VALUE;

    /** The first slot strictly after {@code afterMs}, or {@link #NO_SLOT}. */
    long next(long afterMs);

    /** The last slot strictly before {@code beforeMs}, or {@link Long#MIN_VALUE} when there is none. */
    long previous(long beforeMs);

    /** Slots in {@code [fromMs, toMs]}, counted up to {@code cap} (a count of {@code cap} means at least that many). */
    long count(long fromMs, long toMs, long cap);

    static ScheduleSlots every(long intervalMs) {
        return new Interval(intervalMs);
    }

    /**
     * @throws InvalidRequestException naming {@code cron} or {@code zone}
     */
    static ScheduleSlots cron(String expression, String zone) {
        if (expression == null || expression.isBlank()) {
            throw new InvalidRequestException("cron", "is required");
        }
        ZoneId zoneId;
        try {
            zoneId = ZoneId.of(zone == null || zone.isBlank() ? "UTC" : zone.strip());
        } catch (DateTimeException e) {
            throw new InvalidRequestException("zone", "must be a time zone id such as Europe/Paris or UTC, was '" + zone + "'");
        }
        String text = expression.strip().replaceAll("\\s+", " ");
        int fields = text.split(" ").length;
        CronType type = switch (fields) {
            case 5 -> CronType.UNIX;
            case 6 -> CronType.SPRING53;
            default -> throw new InvalidRequestException("cron", "must have 5 fields (minute hour day month weekday) or 6 "
                    + "(second first), had " + fields + ": '" + text + "'");
        };
        Cron cron;
        try {
            cron = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(type)).parse(text).validate();
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("cron", "is not a valid cron expression: " + e.getMessage());
        }
        String[] parts = text.split(" ");
        int minute = fields == 6 ? 1 : 0;
        boolean byElapsedTime = parts[minute].startsWith("*") || parts[minute + 1].startsWith("*");
        Cronned slots = new Cronned(ExecutionTime.forCron(cron), zoneId, byElapsedTime);
        if (slots.next(0) == NO_SLOT && slots.next(System.currentTimeMillis()) == NO_SLOT) {
            throw new InvalidRequestException("cron", "never matches: '" + text + "'");
        }
        return slots;
    }

    /** Multiples of the interval since the epoch. */
    record Interval(long intervalMs) implements ScheduleSlots {

        public Interval {
            if (intervalMs < 1) {
                throw new IllegalArgumentException("interval must be positive, was " + intervalMs);
            }
        }

        @Override
        public long next(long afterMs) {
            return Math.floorDiv(afterMs, intervalMs) * intervalMs + intervalMs;
        }

        @Override
        public long previous(long beforeMs) {
            return Math.floorDiv(beforeMs - 1, intervalMs) * intervalMs;
        }

        @Override
        public long count(long fromMs, long toMs, long cap) {
            if (toMs < fromMs) {
                return 0;
            }
            long n = Math.floorDiv(toMs, intervalMs) - Math.floorDiv(fromMs - 1, intervalMs);
            return Math.min(Math.max(n, 0), cap);
        }
    }

    /**
     * The times a cron expression matches in its zone. Where daylight saving changes the clocks,
     * the rule is cron's (Vixie cron, as Linux distributions ship it):
     * <ul>
     * <li>clocks go forward: a local time that does not exist that night does not fire (as
     *     cron-utils resolves it);</li>
     * <li>clocks go back: an expression at fixed minutes and hours fires once per wall-clock time,
     *     at the first of the two instants that show it ({@code 30 2 * * *} runs once on the
     *     night of the change); one whose minute or hour field is a wildcard ({@code *},
     *     {@code *}{@code /n}) runs by elapsed time and fires in both (an hourly report runs
     *     every hour of a 25-hour day).</li>
     * </ul>
     */
    final class Cronned implements ScheduleSlots {

        /** More instances in a row than a repeated hour holds (3,600 seconds), so a search always ends. */
        private static final int MOST_REPEATED_IN_A_ROW = 4_000;

        private final ExecutionTime times;
        private final ZoneId zone;
        private final boolean byElapsedTime;

        Cronned(ExecutionTime times, ZoneId zone, boolean byElapsedTime) {
            this.times = times;
            this.zone = zone;
            this.byElapsedTime = byElapsedTime;
        }

        @Override
        public long next(long afterMs) {
            long slot = matchAfter(afterMs);
            for (int guard = 0; slot != NO_SLOT && isRepeatedWallClockTime(slot) && guard < MOST_REPEATED_IN_A_ROW; guard++) {
                slot = matchAfter(slot);
            }
            return slot;
        }

        @Override
        public long previous(long beforeMs) {
            long slot = matchBefore(beforeMs);
            for (int guard = 0; slot != Long.MIN_VALUE && isRepeatedWallClockTime(slot) && guard < MOST_REPEATED_IN_A_ROW; guard++) {
                slot = matchBefore(slot);
            }
            return slot;
        }

        /** The second instant showing a local time that occurs twice (the clocks went back), for a fixed-time expression. */
        private boolean isRepeatedWallClockTime(long ms) {
            if (byElapsedTime) {
                return false;
            }
            ZonedDateTime local = ZonedDateTime.ofInstant(Instant.ofEpochMilli(ms), zone);
            return !local.withEarlierOffsetAtOverlap().toInstant().equals(local.toInstant());
        }

        /** The first match of the expression strictly after {@code afterMs}, repeated wall-clock times included. */
        private long matchAfter(long afterMs) {
            long at = afterMs;
            // cron-utils works in whole seconds: step on until the answer is really after afterMs.
            for (int guard = 0; guard < 4; guard++) {
                Optional<ZonedDateTime> n = times.nextExecution(at(at));
                if (n.isEmpty()) {
                    return NO_SLOT;
                }
                long ms = n.get().toInstant().toEpochMilli();
                if (ms > afterMs) {
                    return ms;
                }
                at = Math.max(ms, at) + 1;
            }
            return NO_SLOT;
        }

        /** The last match of the expression strictly before {@code beforeMs}, repeated wall-clock times included. */
        private long matchBefore(long beforeMs) {
            Optional<ZonedDateTime> p = times.lastExecution(at(beforeMs));
            if (p.isEmpty()) {
                return Long.MIN_VALUE;
            }
            long ms = p.get().toInstant().toEpochMilli();
            for (int guard = 0; ms >= beforeMs && guard < 4; guard++) {
                Optional<ZonedDateTime> earlier = times.lastExecution(at(ms));
                if (earlier.isEmpty()) {
                    return Long.MIN_VALUE;
                }
                ms = earlier.get().toInstant().toEpochMilli();
            }
            // And never one short: a slot between the answer and beforeMs (a truncated second) is the previous one.
            for (long n = matchAfter(ms); n < beforeMs; n = matchAfter(ms)) {
                ms = n;
            }
            return ms < beforeMs ? ms : Long.MIN_VALUE;
        }

        @Override
        public long count(long fromMs, long toMs, long cap) {
            long n = 0;
            for (long s = next(fromMs - 1); s <= toMs && n < cap; s = next(s)) {
                n++;
            }
            return n;
        }

        /** cron-utils keeps the milliseconds it is given; slots are whole seconds, so it is asked from a whole second. */
        private ZonedDateTime at(long ms) {
            return ZonedDateTime.ofInstant(Instant.ofEpochMilli(Math.floorDiv(ms, 1000) * 1000), zone);
        }
    }
}
