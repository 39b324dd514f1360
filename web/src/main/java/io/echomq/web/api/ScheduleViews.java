package io.echomq.web.api;

import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleEvent;
import io.echomq.queue.schedule.ScheduleView;
import jakarta.json.JsonValue;
import java.time.Instant;
import java.util.List;

/** The API's schedule bodies, built from the engine's {@link ScheduleView}. */
final class ScheduleViews {

    private ScheduleViews() {
    }

    /**
     * A schedule: its definition and its state. {@code history} and {@code lastJobState} are in
     * the answers about one schedule, not in lists.
     *
     * @param nextSlot     the next slot to fire (absent until a server planned the first, within a tick of the put)
     * @param lastSlot     the last slot fired, with {@code lastJob}, the job it made, and {@code lastFiredAt}, when
     * @param definedAt    when the definition was put (its first slot is the first after it)
     * @param lastJobState the last job's state now (absent when retention or an operator deleted it)
     */
    public record ScheduleBody(String queue, String name, String kind, String cron, String zone, Long intervalMs, JsonValue payload,
            String lane, int maxAttempts, String misfire, int misfireLimit, long misfireGraceMs, boolean paused, String source,
            long version, Instant nextSlot, Instant lastSlot, String lastJob, Instant lastFiredAt, Instant definedAt,
            Instant resumedAt, long fired, long skipped, String lastJobState, List<Firing> history) {

        static ScheduleBody summary(ScheduleView v) {
            return of(v, null, null);
        }

        static ScheduleBody detail(ScheduleView v, String lastJobState) {
            return of(v, lastJobState, v.history().stream().map(Firing::of).toList());
        }

        private static ScheduleBody of(ScheduleView v, String lastJobState, List<Firing> history) {
            Schedule d = v.definition();
            return new ScheduleBody(d.queue(), d.name(), d.kind(), d.cron().orElse(null), d.zone().orElse(null),
                    d.interval().map(i -> i.toMillis()).orElse(null), Views.json(d.payload()), d.lane(),
                    d.maxAttempts().orElse(0), d.misfire().wireName(), d.misfireLimit(), d.misfireGrace().toMillis(), v.paused(),
                    v.source(), v.version(), v.nextSlot().orElse(null), v.lastSlot().orElse(null), v.lastJob().orElse(null),
                    v.lastFiredAt().orElse(null), v.anchor(), v.resumedAt().orElse(null), v.fired(), v.skipped(), lastJobState,
                    history);
        }
    }

    /**
     * One entry of a schedule's history (see {@link ScheduleEvent}), newest last.
     *
     * @param event {@code fired}, {@code duplicate} (the slot's job already existed: no second one) or {@code skipped}
     * @param slot  the slot, or the latest of the {@code count} skipped
     * @param jobId the slot's job (fired, duplicate)
     */
    public record Firing(Instant at, String event, Instant slot, String jobId, long count) {
        static Firing of(ScheduleEvent e) {
            return new Firing(e.at(), e.event(), e.slot(), e.jobId().orElse(null), e.count());
        }
    }
}
