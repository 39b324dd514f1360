package io.echomq.queue.internal;

import io.echomq.api.Job;
import io.echomq.queue.Dedupe;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.Lease;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * The one place that checks what callers hand the queue. Each failure is an
 * {@link InvalidRequestException} naming the field, thrown before anything reaches Valkey.
 */
public final class RequestChecks {

    /**
     * Queue and lane names become part of Valkey keys: braces would break the hash tag that
     * keeps a queue in one slot, and colons would blur the key layout, so neither is allowed.
     */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final String NAME_RULE =
            "must be 1 to 64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit";

    public static final int MAX_IDEMPOTENCY_KEY_CHARS = 255;
    /**
     * The idempotency keys of recurring jobs: schedule-fire-6 enqueues each slot under
     * {@code schedule:<name>:<slot ms>}. A submission that took one would make the slot's firing
     * a duplicate of the submitter's job (and the effect store would skip the schedule's handler
     * for it), so a submitter could replace an admin's recurring job: no submission may use it.
     */
    public static final String SCHEDULE_KEY_PREFIX = "schedule:";
    /** Flow children's idempotency keys start so: {@code flow:<parent queue>:<parent id>:<parent created ms>:<index>}. */
    public static final String FLOW_KEY_PREFIX = "flow:";
    /**
     * Handlers' follow-up jobs are keyed {@code followup:<queue>:<id>:<created ms>:<step>}
     * ({@link Job#followUpKey}): a submission that took one first would make the
     * follow-up a duplicate of the submitter's job, so the engine's follow-up would never run.
     */
    public static final String FOLLOW_UP_KEY_PREFIX = Job.FOLLOW_UP_KEY_PREFIX;
    /** An outbox row without a key of its own is relayed under {@code outbox:<relay key>}; a submitter may not take it either. */
    public static final String OUTBOX_KEY_PREFIX = "outbox:";
    public static final int MAX_WORKER_ID_CHARS = 200;
    public static final Duration MIN_LEASE = Duration.ofMillis(10);
    public static final Duration MAX_LEASE = Duration.ofHours(24);
    public static final int MAX_CLAIM_BATCH = 1_000;
    /** Longest last-error message (or reconciliation note) kept on a job; the rest is cut. */
    public static final int MAX_ERROR_CHARS = 4_000;

    private RequestChecks() {
    }

    public static String queueName(String queue) {
        return name("queue", queue);
    }

    public static String laneName(String lane) {
        return name("lane", lane);
    }

    /** A schedule's name becomes part of its keys and of its jobs' idempotency keys, so it follows the same rule. */
    public static String scheduleName(String name) {
        return name("name", name);
    }

    private static String name(String field, String value) {
        if (value == null) {
            throw new InvalidRequestException(field, "is required");
        }
        if (!NAME.matcher(value).matches()) {
            throw new InvalidRequestException(field, NAME_RULE + ", was " + quoted(value));
        }
        return value;
    }

    public static String payload(String payload, int maxBytes) {
        if (payload == null) {
            throw new InvalidRequestException("payload", "is required");
        }
        // Cheap bound first: a UTF-8 byte is at least one char and at most three per char.
        if (payload.length() > maxBytes || (long) payload.length() * 3 > maxBytes
                && payload.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            throw new InvalidRequestException("payload", "is larger than the limit of " + maxBytes + " bytes");
        }
        return payload;
    }

    /**
     * A submitter's idempotency key: none of the prefixes the engine keys its own jobs with
     * (recurring schedules, flow children, follow-ups, outbox rows).
     */
    public static String idempotencyKey(String key) {
        outboxIdempotencyKey(key);
        if (key.startsWith(FOLLOW_UP_KEY_PREFIX)) {
            throw reserved(FOLLOW_UP_KEY_PREFIX, "the follow-up jobs of handlers");
        }
        if (key.startsWith(OUTBOX_KEY_PREFIX)) {
            throw reserved(OUTBOX_KEY_PREFIX, "the jobs an outbox relays without a key of their own");
        }
        return key;
    }

    /**
     * The key of a job the engine's outbox relays: a submitter's key (checked by
     * {@link #idempotencyKey} when its row was written), or one the engine minted for a follow-up
     * or a row without a key. Only the outbox's door ({@code Submissions.outboxDoor()}) checks by
     * this rule; the schedules' and flows' prefixes stay closed to it too.
     */
    public static String outboxIdempotencyKey(String key) {
        key("idempotencyKey", key);
        if (key.startsWith(SCHEDULE_KEY_PREFIX)) {
            throw reserved(SCHEDULE_KEY_PREFIX, "the jobs of recurring schedules");
        }
        if (key.startsWith(FLOW_KEY_PREFIX)) {
            throw reserved(FLOW_KEY_PREFIX, "the children of flows");
        }
        return key;
    }

    private static InvalidRequestException reserved(String prefix, String owner) {
        return new InvalidRequestException("idempotencyKey", "must not start with '" + prefix + "': that prefix is reserved for " + owner);
    }

    /** A dedupe key becomes part of a Valkey key (after the queue's hash tag): the idempotency key's rule. */
    public static String dedupeKey(String key) {
        if (key == null) {
            throw new InvalidRequestException("dedupe.key", "is required");
        }
        return key("dedupe.key", key);
    }

    /** The rule of every key a submission names: 1 to {@value #MAX_IDEMPOTENCY_KEY_CHARS} characters, no control characters. */
    private static String key(String field, String key) {
        if (key.isEmpty() || key.length() > MAX_IDEMPOTENCY_KEY_CHARS) {
            throw new InvalidRequestException(field, "must be 1 to " + MAX_IDEMPOTENCY_KEY_CHARS + " characters, was " + key.length());
        }
        if (key.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidRequestException(field, "must not contain control characters");
        }
        return key;
    }

    /** A dedupe window: 1 ms to {@link Dedupe#MAX_WINDOW}. */
    public static Duration dedupeWindow(Duration window) {
        return between("dedupe.windowMs", window, Duration.ofMillis(1), Dedupe.MAX_WINDOW);
    }

    public static String workerId(String worker) {
        if (worker == null || worker.isBlank() || worker.length() > MAX_WORKER_ID_CHARS) {
            throw new InvalidRequestException("workerId", "must be 1 to " + MAX_WORKER_ID_CHARS + " visible characters");
        }
        return worker;
    }

    public static String jobId(String id) {
        return jobId("jobId", id);
    }

    /** A job id taken under another name (a filter's {@code job}). */
    public static String jobId(String field, String id) {
        if (id == null || id.isEmpty() || id.length() > 19 || !id.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new InvalidRequestException(field, "must be a job id (digits), was " + quoted(String.valueOf(id)));
        }
        return id;
    }

    private static final Pattern EVENT_ID = Pattern.compile("\\d{1,18}(-\\d{1,18})?");

    /** A job-event stream entry id, {@code <ms>-<seq>} or {@code <ms>} ({@code 0}: before the first entry). */
    public static String eventId(String field, String id) {
        if (id == null || !EVENT_ID.matcher(id).matches()) {
            throw new InvalidRequestException(field, "must be an event id (<ms>-<seq>, as the stream gave it, or 0 for "
                    + "the oldest kept), was " + quoted(String.valueOf(id)));
        }
        return id;
    }

    public static Duration lease(Duration lease) {
        return between("lease", lease, MIN_LEASE, MAX_LEASE);
    }

    public static Duration between(String field, Duration value, Duration min, Duration max) {
        if (value == null) {
            throw new InvalidRequestException(field, "is required");
        }
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidRequestException(field,
                    "must be between " + min.toMillis() + " ms and " + max.toMillis() + " ms, was " + value.toMillis() + " ms");
        }
        return value;
    }

    public static Duration nonNegative(String field, Duration value) {
        if (value == null) {
            throw new InvalidRequestException(field, "is required");
        }
        if (value.isNegative()) {
            throw new InvalidRequestException(field, "must not be negative, was " + value.toMillis() + " ms");
        }
        return value;
    }

    /** The latest run-at time accepted: the end of year 9999 (UTC). */
    public static final Instant MAX_RUN_AT = Instant.parse("9999-12-31T23:59:59.999Z");

    /** A run-at time as ms since the epoch; whether it is in the future is the server clock's to judge. */
    public static long runAt(String field, Instant value) {
        if (value == null) {
            throw new InvalidRequestException(field, "is required");
        }
        if (value.isBefore(Instant.EPOCH) || value.isAfter(MAX_RUN_AT)) {
            throw new InvalidRequestException(field, "must be between 0 and " + MAX_RUN_AT.toEpochMilli()
                    + " ms since the epoch (1970 to the end of 9999), was " + value);
        }
        return value.toEpochMilli();
    }

    public static long range(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new InvalidRequestException(field, "must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    /** The keys of a queue, after checking its name. */
    public static QueueKeys queueKeys(String queue) {
        return new QueueKeys(queueName(queue));
    }

    /** Checks every field of a lease the fencing compares; the caller names its queue's keys (a shard's or the queue's). */
    public static void leaseFields(Lease lease) {
        if (lease == null) {
            throw new InvalidRequestException("lease", "is required");
        }
        jobId(lease.jobId());
        range("token", lease.token(), 1, Long.MAX_VALUE);
        range("jobCreatedMs", lease.jobCreatedMs(), 0, Long.MAX_VALUE);
    }

    /** A job's last error or note as stored: never empty, at most {@value #MAX_ERROR_CHARS} characters and a mark of the cut. */
    public static String errorText(String error) {
        String text = error == null || error.isBlank() ? "(no message)" : error;
        return text.length() <= MAX_ERROR_CHARS ? text : text.substring(0, MAX_ERROR_CHARS) + "…";
    }

    /** Shows a bad value safely: quoted, control characters escaped, cut to a readable length. */
    private static String quoted(String value) {
        StringBuilder out = new StringBuilder("\"");
        value.codePoints().limit(80).forEach(cp -> {
            if (Character.isISOControl(cp)) {
                out.append(String.format("\\u%04x", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
        if (value.codePointCount(0, value.length()) > 80) {
            out.append("…");
        }
        return out.append('"').toString();
    }
}
