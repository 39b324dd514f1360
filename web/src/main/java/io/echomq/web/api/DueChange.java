package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.QueueClient;
import jakarta.json.JsonNumber;
import java.time.Duration;
import java.time.Instant;

/**
 * A delayed job's new due time: {@code {"runAt": ms since the epoch}} or {@code {"delayMs": n}}
 * (from the Valkey server's now), exactly one of them. A moment not in the future on the
 * server's clock makes the job pending now.
 */
public record DueChange(JsonNumber runAt, JsonNumber delayMs) {

    /** Hands the change to the queue; a body that is missing or names both or neither is refused naming the field. */
    static ManualTransition applyTo(DueChange body, QueueClient queue, String queueName, String jobId) {
        if (body == null || (body.runAt == null) == (body.delayMs == null)) {
            throw new InvalidRequestException(body == null || body.runAt == null ? "runAt" : "delayMs",
                    "give exactly one of runAt (ms since the epoch) and delayMs");
        }
        if (body.runAt != null) {
            return queue.reschedule(queueName, jobId, Instant.ofEpochMilli(JobRequest.wholeMillis("runAt", body.runAt)));
        }
        long delay = JobRequest.wholeMillis("delayMs", body.delayMs);
        if (delay < 0) {
            throw new InvalidRequestException("delayMs", "must not be negative, was " + delay);
        }
        return queue.reschedule(queueName, jobId, Duration.ofMillis(delay));
    }
}
