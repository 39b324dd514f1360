package io.echomq.queue.limits;

import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A queue's concurrency caps and rate limits, kept in Valkey and enforced by the claim on the
 * Valkey server's clock, so they hold across every server that works the queue.
 * The lane limits apply to each lane on its own: a lane at its limit is held aside and the
 * other lanes go on being served; its jobs wait as pending.
 *
 * @param maxActive     at most this many of the queue's jobs active at once
 * @param rate          at most so many of the queue's jobs started in any window
 * @param laneMaxActive at most this many active jobs in any one lane
 * @param laneRate      at most so many jobs of any one lane started in any window
 */
public record QueueLimits(Optional<Integer> maxActive, Optional<Rate> rate, Optional<Integer> laneMaxActive,
        Optional<Rate> laneRate) {

    /** No cap and no rate limit. */
    public static final QueueLimits NONE = new QueueLimits(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

    /** The largest cap or number of starts per window a limit may name. */
    public static final int MAX_COUNT = 1_000_000;

    /** The longest window of a rate limit. */
    public static final Duration MAX_WINDOW = Duration.ofDays(1);

    /**
     * At most {@code starts} claims in any {@code window} (a sliding window on the server clock:
     * a start counts until {@code window} after it).
     */
    public record Rate(int starts, Duration window) {

        public Rate {
            Objects.requireNonNull(window, "window");
        }

        @Override
        public String toString() {
            return starts + " per " + window.toMillis() + " ms";
        }
    }

    public QueueLimits {
        Objects.requireNonNull(maxActive, "maxActive");
        Objects.requireNonNull(rate, "rate");
        Objects.requireNonNull(laneMaxActive, "laneMaxActive");
        Objects.requireNonNull(laneRate, "laneRate");
    }

    public QueueLimits withMaxActive(int cap) {
        return new QueueLimits(Optional.of(cap), rate, laneMaxActive, laneRate);
    }

    public QueueLimits withRate(int starts, Duration window) {
        return new QueueLimits(maxActive, Optional.of(new Rate(starts, window)), laneMaxActive, laneRate);
    }

    public QueueLimits withLaneMaxActive(int cap) {
        return new QueueLimits(maxActive, rate, Optional.of(cap), laneRate);
    }

    public QueueLimits withLaneRate(int starts, Duration window) {
        return new QueueLimits(maxActive, rate, laneMaxActive, Optional.of(new Rate(starts, window)));
    }

    public boolean isNone() {
        return equals(NONE);
    }

    /** For logs and messages: {@code max-active 5, lane rate 10 per 1000 ms}, or {@code none}. */
    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        maxActive.ifPresent(cap -> parts.add("max-active " + cap));
        rate.ifPresent(r -> parts.add("rate " + r));
        laneMaxActive.ifPresent(cap -> parts.add("lane max-active " + cap));
        laneRate.ifPresent(r -> parts.add("lane rate " + r));
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }

    /**
     * The six values as the set-limits and shard-meta scripts take them, '' for one not set:
     * maxActive, rate starts, rate window in ms, laneMaxActive, lane rate starts, lane rate window in ms.
     */
    public List<String> wireFields() {
        return List.of(
                maxActive.map(String::valueOf).orElse(""),
                rate.map(r -> Integer.toString(r.starts())).orElse(""),
                rate.map(r -> Long.toString(r.window().toMillis())).orElse(""),
                laneMaxActive.map(String::valueOf).orElse(""),
                laneRate.map(r -> Integer.toString(r.starts())).orElse(""),
                laneRate.map(r -> Long.toString(r.window().toMillis())).orElse(""));
    }

    /**
     * Checks every value; a bad one is refused naming its field ({@code maxActive},
     * {@code rate.starts}, {@code rate.windowMs}, {@code laneMaxActive}, …).
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public QueueLimits check() {
        maxActive.ifPresent(cap -> RequestChecks.range("maxActive", cap, 1, MAX_COUNT));
        rate.ifPresent(r -> checkRate("rate", r));
        laneMaxActive.ifPresent(cap -> RequestChecks.range("laneMaxActive", cap, 1, MAX_COUNT));
        laneRate.ifPresent(r -> checkRate("laneRate", r));
        return this;
    }

    private static void checkRate(String field, Rate rate) {
        RequestChecks.range(field + ".starts", rate.starts(), 1, MAX_COUNT);
        RequestChecks.between(field + ".windowMs", rate.window(), Duration.ofMillis(1), MAX_WINDOW);
    }
}
