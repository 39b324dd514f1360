package io.echomq.web.api;

import io.echomq.queue.Dedupe;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import jakarta.json.JsonNumber;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * A job as submitted: {@code {"payload": <any JSON>, "lane": "…", "delayMs": n, "runAt": ms,
 * "maxAttempts": n, "idempotencyKey": "…", "priority": 0-9}}; all but the payload are optional (the key is
 * usually given as the {@code Idempotency-Key} header; in a batch, per job). At most one of
 * {@code delayMs} and {@code runAt} (ms since the epoch, judged on the Valkey server's clock; a
 * moment not in the future there means now). {@code priority} runs from 0 (lowest) to 9
 * (highest), 4 by default, as in JMS: within its lane a job of higher priority is claimed first.
 * {@code "dedupe": {"key": "…", "windowMs": n, "mode": "debounce"|"throttle"}} debounces or
 * throttles the submission by key (see {@link Dedupe}).
 */
public record JobRequest(JsonValue payload, String lane, JsonNumber delayMs, Integer maxAttempts, String idempotencyKey,
        JsonNumber runAt, Integer priority, DedupeRequest dedupe) {

    /** A submission's dedupe key, its window in ms and its mode ({@code debounce} or {@code throttle}); all required. */
    public record DedupeRequest(String key, JsonNumber windowMs, String mode) {

        Dedupe toDedupe() {
            if (windowMs == null) {
                throw new InvalidRequestException("dedupe.windowMs", "is required (ms, at least 1)");
            }
            if (mode == null) {
                throw new InvalidRequestException("dedupe.mode", "is required: debounce or throttle");
            }
            Dedupe.Mode parsed = switch (mode.toLowerCase(Locale.ROOT)) {
                case "debounce" -> Dedupe.Mode.DEBOUNCE;
                case "throttle" -> Dedupe.Mode.THROTTLE;
                default -> throw new InvalidRequestException("dedupe.mode", "must be debounce or throttle, was \"" + mode + "\"");
            };
            return new Dedupe(key, Duration.ofMillis(wholeMillis("dedupe.windowMs", windowMs)), parsed);
        }
    }

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
        if (dedupe != null) {
            job = job.withDedupe(dedupe.toDedupe());
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
