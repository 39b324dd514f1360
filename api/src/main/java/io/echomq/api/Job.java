package io.echomq.api;

import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbException;
import jakarta.json.spi.JsonProvider;
import java.io.StringReader;

/**
 * One delivery of a job to its handler.
 *
 * @param queue     the queue the job came from
 * @param id        the job's id, stable across deliveries
 * @param createdMs when the job was submitted (ms, Valkey's clock); with the id it names the job
 *                  even if a failover hands the id out again
 * @param attempt   which delivery this is (1 for the first)
 * @param lane      the job's fairness lane
 * @param payload   the payload as submitted (JSON by convention)
 */
public record Job(String queue, String id, long createdMs, long attempt, String lane, String payload) {

    /**
     * One JSON-P provider for all jobs: {@code Json.createReader} looks the implementation up
     * anew on every call (measured: 32 µs to read a small payload, against 0.3 µs through one provider).
     */
    private static final JsonProvider JSON_P = JsonProvider.provider();

    /** One JSON-B instance for all jobs: it is thread-safe and costly to build. */
    private static final class Binding {
        static final Jsonb JSONB = JsonbBuilder.create();
    }

    /**
     * A key unique to this job (not to the attempt), {@code <queue>:<id>:<created ms>}: pass it
     * to outside systems that deduplicate by key, so a redelivery is recognised there too. The
     * creation time is in it because ids alone can repeat: a Valkey failover that loses writes
     * can hand an id out again, and the new job must not be taken for the old one there either.
     */
    public String idempotencyKey() {
        return queue + ":" + id + ":" + createdMs;
    }

    /** The longest name of a follow-up step ({@link #followUpKey}): the key stays within an idempotency key's 255 characters. */
    public static final int MAX_STEP_CHARS = 100;

    /** What every follow-up job's idempotency key starts with. */
    public static final String FOLLOW_UP_KEY_PREFIX = "followup:";

    /**
     * The idempotency key of this job's follow-up named {@code step}:
     * {@code followup:<queue>:<id>:<created ms>:<step>}. The one key rule of every way a handler
     * makes follow-up jobs (the engine's {@code JobContext.followUp}, a message-driven bean's
     * {@link JobQueueConnection#followUp}). It names the job and the step, never the attempt: a
     * redelivered job that writes its follow-ups again makes the same jobs, not new ones.
     *
     * @param step 1 to {@value #MAX_STEP_CHARS} characters, no control characters; unique among
     *             the job's follow-ups
     * @throws IllegalArgumentException the step is not such a name; the message starts with {@code step}
     */
    public String followUpKey(String step) {
        if (step == null || step.isEmpty() || step.length() > MAX_STEP_CHARS) {
            throw new IllegalArgumentException("step: must be 1 to " + MAX_STEP_CHARS + " characters naming the follow-up, was "
                    + (step == null ? "null" : step.length() + " characters"));
        }
        if (step.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("step: must not contain control characters");
        }
        return FOLLOW_UP_KEY_PREFIX + queue + ":" + id + ":" + createdMs + ":" + step;
    }

    /** The payload parsed as JSON (JSON-P); a payload that is not JSON is a permanent failure. */
    public JsonValue json() throws PermanentJobFailure {
        try (JsonReader reader = JSON_P.createReader(new StringReader(payload))) {
            return reader.readValue();
        } catch (jakarta.json.JsonException e) {
            throw new PermanentJobFailure("payload of job " + id + " is not valid JSON: " + e.getMessage(), e);
        }
    }

    /** The payload bound to {@code type} (JSON-B); a payload that does not bind is a permanent failure. */
    public <T> T payloadAs(Class<T> type) throws PermanentJobFailure {
        try {
            return Binding.JSONB.fromJson(payload, type);
        } catch (JsonbException e) {
            throw new PermanentJobFailure("payload of job " + id + " does not bind to " + type.getSimpleName()
                    + ": " + e.getMessage(), e);
        }
    }
}
