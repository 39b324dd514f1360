package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.Misfire;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Schedule;
import jakarta.json.JsonNumber;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.Optional;

/**
 * A schedule's definition as PUT: {@code {"cron": "0 3 * * *", "zone": "Europe/Paris"}} or
 * {@code {"intervalMs": 60000}}, with the optional {@code payload} (any JSON, default {@code {}}),
 * {@code lane}, {@code maxAttempts}, {@code misfire}, {@code misfireLimit} and
 * {@code misfireGraceMs}. {@code queue} and {@code name} come from the address; the body may
 * repeat them (a schedule as GET answers it can be sent back), but not contradict them.
 */
public record ScheduleRequest(String queue, String name, String cron, String zone, JsonNumber intervalMs, JsonValue payload,
        String lane, Integer maxAttempts, String misfire, Integer misfireLimit, JsonNumber misfireGraceMs) {

    /** The engine's definition; each field is checked by {@link Schedule#check} when it is put. */
    Schedule toSchedule(String pathQueue, String pathName) {
        sameAsTheAddress("queue", queue, pathQueue);
        sameAsTheAddress("name", name, pathName);
        String payloadText = payload == null || payload.getValueType() == JsonValue.ValueType.NULL ? "{}" : payload.toString();
        return new Schedule(pathQueue, pathName, Optional.ofNullable(cron), Optional.ofNullable(zone),
                Optional.ofNullable(intervalMs).map(n -> Duration.ofMillis(wholeMillis("intervalMs", n))), payloadText,
                lane == null ? QueueClient.DEFAULT_LANE : lane, Optional.ofNullable(maxAttempts),
                misfire == null ? Misfire.RUN_ONCE : Misfire.of("misfire", misfire),
                misfireLimit == null ? Schedule.DEFAULT_MISFIRE_LIMIT : misfireLimit,
                misfireGraceMs == null ? Schedule.DEFAULT_MISFIRE_GRACE : Duration.ofMillis(wholeMillis("misfireGraceMs", misfireGraceMs)));
    }

    private static void sameAsTheAddress(String field, String inBody, String inPath) {
        if (inBody != null && !inBody.equals(inPath)) {
            throw new InvalidRequestException(field, "the body names '" + inBody + "' but the address names '" + inPath
                    + "'; leave it out of the body, or send it to the schedule's own address");
        }
    }

    /** Converted exactly, as a job's delay is: a number such as {@code 1e999} must not wrap. */
    private static long wholeMillis(String field, JsonNumber n) {
        try {
            return n.bigDecimalValue().longValueExact();
        } catch (ArithmeticException e) {
            throw new InvalidRequestException(field, "must be a whole number of milliseconds within range, was " + n);
        }
    }
}
