package io.echomq.queue.schedule;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A recurring job's definition: which queue gets a job, when (a cron expression in a time zone,
 * or a fixed interval), with what payload and lane, and what to do with slots missed while
 * nothing ran. Its slots ({@link #slots()}) are a pure function of this record.
 *
 * @param cron          a cron expression (5 fields, or 6 with seconds first); absent for an interval
 * @param zone          the cron expression's time zone ({@code UTC} unless given); absent for an interval
 * @param interval      a fixed interval (slots on its multiples since the epoch); absent for cron
 * @param maxAttempts   each job's attempts; absent: the queue's default
 * @param misfireLimit  how many missed slots {@link Misfire#RUN_EACH} fires at most in one catch-up
 * @param misfireGrace  a slot later than this when a server first gets to it is missed
 */
public record Schedule(String queue, String name, Optional<String> cron, Optional<String> zone, Optional<Duration> interval,
        String payload, String lane, Optional<Integer> maxAttempts, Misfire misfire, int misfireLimit, Duration misfireGrace) {

    public static final Duration MIN_INTERVAL = Duration.ofMillis(10);
    public static final Duration MAX_INTERVAL = Duration.ofDays(366);
    public static final Duration DEFAULT_MISFIRE_GRACE = Duration.ofSeconds(10);
    public static final Duration MIN_MISFIRE_GRACE = Duration.ofMillis(10);
    public static final int DEFAULT_MISFIRE_LIMIT = 10;
    /** The most slots one firing call enqueues, and so the largest misfire limit. */
    public static final int MAX_FIRES_PER_CALL = 1_000;

    public Schedule {
        Objects.requireNonNull(cron, "cron");
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(maxAttempts, "maxAttempts");
    }

    /** A schedule firing every {@code interval}, with the defaults: lane {@code default}, misfire {@code run-once}. */
    public static Schedule every(String queue, String name, Duration interval, String payload) {
        return new Schedule(queue, name, Optional.empty(), Optional.empty(), Optional.of(interval), payload,
                NewJob.DEFAULT_LANE, Optional.empty(), Misfire.RUN_ONCE, DEFAULT_MISFIRE_LIMIT, DEFAULT_MISFIRE_GRACE);
    }

    /** A schedule firing when {@code cron} matches in {@code zone}, with the defaults of {@link #every}. */
    public static Schedule cron(String queue, String name, String cron, String zone, String payload) {
        return new Schedule(queue, name, Optional.of(cron), Optional.of(zone), Optional.empty(), payload,
                NewJob.DEFAULT_LANE, Optional.empty(), Misfire.RUN_ONCE, DEFAULT_MISFIRE_LIMIT, DEFAULT_MISFIRE_GRACE);
    }

    public Schedule inLane(String newLane) {
        return new Schedule(queue, name, cron, zone, interval, payload, newLane, maxAttempts, misfire, misfireLimit, misfireGrace);
    }

    public Schedule withMaxAttempts(int attempts) {
        return new Schedule(queue, name, cron, zone, interval, payload, lane, Optional.of(attempts), misfire, misfireLimit,
                misfireGrace);
    }

    public Schedule withMisfire(Misfire policy, int limit) {
        return new Schedule(queue, name, cron, zone, interval, payload, lane, maxAttempts, policy, limit, misfireGrace);
    }

    public Schedule withMisfireGrace(Duration grace) {
        return new Schedule(queue, name, cron, zone, interval, payload, lane, maxAttempts, misfire, misfireLimit, grace);
    }

    /** {@code cron} or {@code interval}. */
    public String kind() {
        return cron.isPresent() ? "cron" : "interval";
    }

    /**
     * Checks every field as the API and the configuration need it, each failure naming its field
     * ({@code queue}, {@code name}, {@code cron}, {@code zone}, {@code intervalMs}, {@code payload},
     * {@code lane}, {@code maxAttempts}, {@code misfire}, {@code misfireLimit}, {@code misfireGraceMs}).
     *
     * @return the slot sequence of the definition
     * @throws InvalidRequestException for the first bad field
     */
    public ScheduleSlots check(QueueSettings settings) {
        RequestChecks.queueName(queue);
        RequestChecks.scheduleName(name);
        ScheduleSlots slots = slotsChecked();
        RequestChecks.payload(payload, settings.maxPayloadBytes());
        RequestChecks.laneName(lane);
        maxAttempts.ifPresent(n -> RequestChecks.range("maxAttempts", n, 1, settings.maxAttemptsLimit()));
        if (misfire == null) {
            throw new InvalidRequestException("misfire", "is required");
        }
        RequestChecks.range("misfireLimit", misfireLimit, 1, MAX_FIRES_PER_CALL);
        if (misfireGrace == null || misfireGrace.compareTo(MIN_MISFIRE_GRACE) < 0 || misfireGrace.compareTo(Duration.ofDays(1)) > 0) {
            throw new InvalidRequestException("misfireGraceMs", "must be between " + MIN_MISFIRE_GRACE.toMillis() + " and "
                    + Duration.ofDays(1).toMillis() + " ms, was " + (misfireGrace == null ? "nothing" : misfireGrace.toMillis()));
        }
        return slots;
    }

    /** The slot sequence; the definition's when-fields must be valid ({@link #check}). */
    public ScheduleSlots slots() {
        return slotsChecked();
    }

    private ScheduleSlots slotsChecked() {
        if (cron.isPresent() == interval.isPresent()) {
            throw new InvalidRequestException(cron.isPresent() ? "intervalMs" : "cron",
                    "give either a cron expression (with an optional zone) or an interval, not " + (cron.isPresent() ? "both" : "neither"));
        }
        if (interval.isPresent()) {
            if (zone.isPresent()) {
                throw new InvalidRequestException("zone", "applies to a cron expression only, not to an interval");
            }
            RequestChecks.between("intervalMs", interval.get(), MIN_INTERVAL, MAX_INTERVAL);
            return ScheduleSlots.every(interval.get().toMillis());
        }
        return ScheduleSlots.cron(cron.get(), zone.orElse("UTC"));
    }

    /** The definition as one text: two definitions fire alike exactly when their fingerprints are equal. */
    String fingerprint(int attempts) {
        char sep = 0x1f;
        return String.join(String.valueOf(sep), kind(), cron.orElse(""), zone.orElse(cron.isPresent() ? "UTC" : ""),
                interval.map(d -> Long.toString(d.toMillis())).orElse(""), payload, lane, Integer.toString(attempts),
                misfire.wireName(), Integer.toString(misfireLimit), Long.toString(misfireGrace.toMillis()));
    }
}
