package io.echomq.queue.limits;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A queue's caps and rate limits as the claim reads them now, and which set them.
 *
 * @param source empty while no limits were ever set
 */
public record LimitsInForce(QueueLimits limits, Optional<LimitsSource> source) {

    /** The fields of a queue's meta hash that hold its limits and their source, in the order {@link #of} reads them. */
    public static final List<String> META_FIELDS = List.of("max_active", "rate_max", "rate_window_ms", "lane_max_active",
            "lane_rate_max", "lane_rate_window_ms", "limits_source");

    /** The limits stored in {@link #META_FIELDS}, given in that order (an absent field is {@code null}). */
    public static LimitsInForce of(List<String> f) {
        return new LimitsInForce(new QueueLimits(Optional.ofNullable(f.get(0)).map(Integer::valueOf), rate(f.get(1), f.get(2)),
                Optional.ofNullable(f.get(3)).map(Integer::valueOf), rate(f.get(4), f.get(5))),
                Optional.ofNullable(f.get(6)).map(LimitsSource::of));
    }

    private static Optional<QueueLimits.Rate> rate(String starts, String windowMs) {
        return starts == null || windowMs == null ? Optional.empty()
                : Optional.of(new QueueLimits.Rate(Integer.parseInt(starts), Duration.ofMillis(Long.parseLong(windowMs))));
    }
}
