package io.echomq.queue.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A schedule as Valkey holds it: its definition and its state.
 *
 * @param version     grows with every replacement of the definition
 * @param source      who put the definition: {@code config} or {@code api}
 * @param nextSlot    the next slot to fire; absent until a server planned the first (within a tick of the put) or while the
 *                    schedule has none
 * @param lastSlot    the last slot fired, with {@code lastJob}, the job it made, and {@code lastFiredAt}, when
 * @param anchor      when the definition was put (its first slot is the first after it)
 * @param resumedAt   the last resume; slots due before it are skipped
 * @param fired       slots fired since the schedule was created
 * @param skipped     slots skipped (paused or missed) since then
 * @param history     the last firings and skips, oldest first
 */
public record ScheduleView(Schedule definition, long version, String source, boolean paused, Optional<Instant> nextSlot,
        Optional<Instant> lastSlot, Optional<String> lastJob, Optional<Instant> lastFiredAt, Instant anchor,
        Optional<Instant> resumedAt, long fired, long skipped, List<ScheduleEvent> history) {

    public ScheduleView {
        history = List.copyOf(history);
    }

    /** The stored next slot in ms, absent while unplanned. */
    public OptionalLong nextSlotMs() {
        return nextSlot.map(i -> OptionalLong.of(i.toEpochMilli())).orElse(OptionalLong.empty());
    }

    /** Reads the hash {@code schedule-put} and {@code schedule-fire} write. */
    static ScheduleView of(String queue, Map<String, String> h, List<String> log) {
        String kind = h.getOrDefault("kind", "interval");
        Schedule definition = new Schedule(queue, h.get("name"),
                "cron".equals(kind) ? Optional.of(h.get("cron")) : Optional.empty(),
                "cron".equals(kind) ? Optional.of(h.getOrDefault("zone", "UTC")) : Optional.empty(),
                "cron".equals(kind) ? Optional.empty() : Optional.of(Duration.ofMillis(Long.parseLong(h.get("interval_ms")))),
                h.get("payload"), h.get("lane"), Optional.of(Integer.parseInt(h.get("max_attempts"))),
                Misfire.of("misfire", h.get("misfire")), Integer.parseInt(h.get("misfire_limit")),
                Duration.ofMillis(Long.parseLong(h.get("misfire_grace_ms"))));
        return new ScheduleView(definition, Long.parseLong(h.get("version")), h.getOrDefault("source", "api"),
                "1".equals(h.get("paused")), instant(h.get("next_slot")), instant(h.get("last_slot")),
                Optional.ofNullable(h.get("last_job")), instant(h.get("last_fired_at")),
                Instant.ofEpochMilli(Long.parseLong(h.get("anchor"))), instant(h.get("resumed_at")),
                count(h.get("fired")), count(h.get("skipped")), log.stream().map(ScheduleEvent::parse).toList());
    }

    private static Optional<Instant> instant(String ms) {
        return ms == null || ms.isEmpty() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(ms)));
    }

    private static long count(String n) {
        return n == null || n.isEmpty() ? 0 : Long.parseLong(n);
    }
}
