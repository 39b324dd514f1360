package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import jakarta.json.JsonNumber;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A job as submitted: {@code {"payload": <any JSON>, "lane": "…", "delayMs": n, "runAt": ms,
 * "maxAttempts": n, "idempotencyKey": "…", "priority": 0-9}}; all but the payload are optional (the key is
 * usually given as the {@code Idempotency-Key} header; in a batch, per job). At most one of
 * {@code delayMs} and {@code runAt} (ms since the epoch, judged on the Valkey server's clock; a
 * moment not in the future there means now). {@code priority} runs from 0 (lowest) to 9
 * (highest), 4 by default, as in JMS: within its lane a job of higher priority is claimed first.
 */
public record JobRequest(JsonValue payload, String lane, JsonNumber delayMs, Integer maxAttempts, String idempotencyKey,
        JsonNumber runAt, Integer priority) {

    /** The engine's job; the payload is kept as the JSON text it arrived as. */
    NewJob toNewJob(Optional<String> headerKey) {
        if (payload == null || payload.getValueType() == JsonValue.ValueType.NULL) {
            throw new InvalidRequestException("payload", "is required (any JSON value)");
        }
        NewJob job = NewJob.of(payload.toString()).inLane(lane);
        if (delayMs != null && runAt != null) {
            throw new InvalidRequestException("runAt", "give delayMs or runAt, not both");
        }
        if (delayMs != null) {
            job = job.delayedBy(Duration.ofMillis(wholeMillis("delay", delayMs)));
        }
        if (runAt != null) {
            job = job.scheduledAt(Instant.ofEpochMilli(wholeMillis("runAt", runAt)));
        }
        if (maxAttempts != null) {
            job = job.withMaxAttempts(maxAttempts);
        }
        if (priority != null) {
            job = job.withPriority(priority);
        }
        Optional<String> key = headerKey.or(() -> Optional.ofNullable(idempotencyKey));
        return key.map(job::withIdempotencyKey).orElse(job);
    }

    /**
     * Read as a JSON number and converted exactly: bound to a {@code Long} directly, a number
     * such as {@code 1e999} silently wrapped to 0 and the job ran at once.
     */
    static long wholeMillis(String field, JsonNumber value) {
        try {
            return value.bigDecimalValue().longValueExact();
        } catch (ArithmeticException e) {
            throw new InvalidRequestException(field, "must be a whole number of milliseconds within range, was " + value);
        }
    }
}
