package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.schedule.Misfire;
import io.echomq.queue.schedule.Schedule;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.Optional;

/**
 * A schedule's definition as PUT: {@code {"cron": "0 3 * * *", "zone": "Europe/Paris"}} or
 * {@code {"intervalMs": 60000}}, with the optional {@code payload} (any JSON, default {@code {}}),
 * {@code lane}, {@code maxAttempts}, {@code misfire}, {@code misfireLimit} and
 * {@code misfireGraceMs}. {@code queue} and {@code name} come from the address; the body may
 * repeat them (a schedule as GET answers it can be sent back: the fields of the answer that are
 * not fields here are passed over), but not contradict them. Each field's kind is
 * {@link BodyBinding}'s to check, its range the engine's.
 */
public record ScheduleRequest(String queue, String name, String cron, String zone, Long intervalMs, JsonValue payload,
        String lane, Integer maxAttempts, String misfire, Integer misfireLimit, Long misfireGraceMs) {

    /** The engine's definition; each field is checked by {@link Schedule#check} when it is put. */
    Schedule toSchedule(String pathQueue, String pathName) {
        sameAsTheAddress("queue", queue, pathQueue);
        sameAsTheAddress("name", name, pathName);
        String payloadText = payload == null || payload.getValueType() == JsonValue.ValueType.NULL ? "{}" : payload.toString();
        return new Schedule(pathQueue, pathName, Optional.ofNullable(cron), Optional.ofNullable(zone),
                Optional.ofNullable(intervalMs).map(Duration::ofMillis), payloadText,
                lane == null ? NewJob.DEFAULT_LANE : lane, Optional.ofNullable(maxAttempts),
                misfire == null ? Misfire.RUN_ONCE : Misfire.of("misfire", misfire),
                misfireLimit == null ? Schedule.DEFAULT_MISFIRE_LIMIT : misfireLimit,
                misfireGraceMs == null ? Schedule.DEFAULT_MISFIRE_GRACE : Duration.ofMillis(misfireGraceMs));
    }

    private static void sameAsTheAddress(String field, String inBody, String inPath) {
        if (inBody != null && !inBody.equals(inPath)) {
            throw new InvalidRequestException(field, "the body names '" + inBody + "' but the address names '" + inPath
                    + "'; leave it out of the body, or send it to the schedule's own address");
        }
    }
}
