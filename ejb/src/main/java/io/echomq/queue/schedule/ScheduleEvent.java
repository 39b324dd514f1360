package io.echomq.queue.schedule;

import java.time.Instant;
import java.util.Optional;

/**
 * One entry of a schedule's firing history, recorded by {@code schedule-fire} on the server clock.
 *
 * @param event  {@code fired} (the slot's job made), {@code duplicate} (the slot's job already existed: no second one),
 *               {@code skipped} ({@code count} slots passed over, the latest being {@code slot})
 * @param slot   the slot, or the latest skipped one
 * @param jobId  the slot's job (fired, duplicate)
 */
public record ScheduleEvent(Instant at, String event, Instant slot, Optional<String> jobId, long count) {

    static ScheduleEvent parse(String entry) {
        String[] f = entry.split("\u001f", -1);
        return new ScheduleEvent(Instant.ofEpochMilli(Long.parseLong(f[0])), f[1], Instant.ofEpochMilli(Long.parseLong(f[2])),
                f[3].isEmpty() ? Optional.empty() : Optional.of(f[3]), f.length > 4 && !f[4].isEmpty() ? Long.parseLong(f[4]) : 1);
    }
}
