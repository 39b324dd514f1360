package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.QueueAdmin;
import java.time.Duration;
import java.time.Instant;

/**
 * A delayed job's new due time: {@code {"runAt": …}} (an ISO-8601 instant such as
 * {@code "2027-01-01T00:00:00Z"}, or ms since the epoch) or {@code {"delayMs": n}} (from the
 * Valkey server's now), exactly one of them. A moment not in the future on the server's clock
 * makes the job pending now. Each field's kind is {@link BodyBinding}'s to check, its range the
 * engine's.
 */
public record DueChange(Instant runAt, Long delayMs) {

    /** Hands the change to the queue; a body that is missing or names both or neither is refused naming the field. */
    static ManualTransition applyTo(DueChange body, QueueAdmin admin, String queueName, String jobId) {
        if (body == null || (body.runAt == null) == (body.delayMs == null)) {
            throw new InvalidRequestException(body == null || body.runAt == null ? "runAt" : "delayMs",
                    "give exactly one of runAt (an ISO-8601 instant, or ms since the epoch) and delayMs");
        }
        if (body.runAt != null) {
            return admin.reschedule(queueName, jobId, body.runAt);
        }
        return admin.reschedule(queueName, jobId, Duration.ofMillis(body.delayMs));
    }
}
