package io.echomq.web.api;

import io.echomq.queue.Dedupe;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.queue.WireName;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * A job as submitted: {@code {"payload": <any JSON>, "lane": "…", "delayMs": n, "runAt": …,
 * "maxAttempts": n, "idempotencyKey": "…", "priority": 0-9}}; all but the payload are optional (the key is
 * usually given as the {@code Idempotency-Key} header; in a batch, per job). At most one of
 * {@code delayMs} and {@code runAt} (an ISO-8601 instant such as {@code "2027-01-01T00:00:00Z"},
 * or ms since the epoch; judged on the Valkey server's clock, a moment not in the future there
 * means now). {@code priority} runs from 0 (lowest) to 9 (highest), 4 by default, as in JMS:
 * within its lane a job of higher priority is claimed first.
 * {@code "dedupe": {"key": "…", "windowMs": n, "mode": "debounce"|"throttle"}} debounces or
 * throttles the submission by key (see {@link Dedupe}). Each field's kind is {@link BodyBinding}'s
 * to check, its range the engine's.
 *
 * <p>The JSON body of the HTTP API only (the OpenAPI schema {@code JobRequest}); the resource
 * adapter's applications submit {@code io.echomq.api.JobRequest} instead. Both become a
 * {@link NewJob}.
 */
public record JobBody(JsonValue payload, String lane, Long delayMs, Integer maxAttempts, String idempotencyKey,
        Instant runAt, Integer priority, DedupeBody dedupe) {

    public JobBody {
        if (payload == null || payload.getValueType() == JsonValue.ValueType.NULL) {
            throw new InvalidRequestException("payload", "is required (any JSON value)");
        }
    }

    /**
     * A submission's dedupe key, its window in ms and its mode ({@code debounce} or {@code throttle},
     * in any case); the engine requires all three.
     */
    public record DedupeBody(String key, Long windowMs, String mode) {

        public DedupeBody {
            modeOf(mode);
        }

        private static Dedupe.Mode modeOf(String mode) {
            if (mode == null) {
                return null;
            }
            return WireName.find(Dedupe.Mode.class, mode.toLowerCase(Locale.ROOT))
                    .orElseThrow(() -> new InvalidRequestException("mode", "must be debounce or throttle, was \"" + mode + "\""));
        }

        Dedupe toDedupe() {
            return new Dedupe(key, windowMs == null ? null : Duration.ofMillis(windowMs), modeOf(mode));
        }
    }

    /** The engine's job; the payload is kept as the JSON text it arrived as. */
    NewJob toNewJob(Optional<String> headerKey) {
        NewJob job = NewJob.of(payload.toString()).inLane(lane);
        if (delayMs != null) {
            job = job.delayedBy(Duration.ofMillis(delayMs));
        }
        if (runAt != null) {
            job = job.scheduledAt(runAt);
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
}
