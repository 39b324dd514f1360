package io.echomq.web.api;

import io.echomq.queue.limits.QueueLimits;
import java.time.Duration;
import java.util.Optional;

/**
 * A queue's limits as PUT and as answered: {@code {"maxActive": 50, "rate": {"starts": 100,
 * "windowMs": 1000}, "laneMaxActive": 2, "laneRate": {"starts": 10, "windowMs": 60000}}}; an
 * absent (or null) field is no limit of that kind, so a PUT replaces every limit and {@code {}}
 * clears them. A field the body names that is not one of these is refused: read as absent, a
 * misspelt limit would clear the one it meant to set. Each field's kind is {@link BodyBinding}'s
 * to check, its range {@link QueueLimits#check}'s.
 */
@KnownFieldsOnly
public record LimitsBody(Integer maxActive, RateBody rate, Integer laneMaxActive, RateBody laneRate) {

    /** At most {@code starts} jobs started in any {@code windowMs}; both required. */
    @KnownFieldsOnly
    public record RateBody(int starts, long windowMs) {

        static RateBody of(QueueLimits.Rate rate) {
            return new RateBody(rate.starts(), rate.window().toMillis());
        }

        QueueLimits.Rate toRate() {
            return new QueueLimits.Rate(starts, Duration.ofMillis(windowMs));
        }
    }

    /** The engine's limits from a PUT's body. */
    QueueLimits toLimits() {
        return new QueueLimits(Optional.ofNullable(maxActive), Optional.ofNullable(rate).map(RateBody::toRate),
                Optional.ofNullable(laneMaxActive), Optional.ofNullable(laneRate).map(RateBody::toRate));
    }

    static LimitsBody of(QueueLimits limits) {
        return new LimitsBody(limits.maxActive().orElse(null), limits.rate().map(RateBody::of).orElse(null),
                limits.laneMaxActive().orElse(null), limits.laneRate().map(RateBody::of).orElse(null));
    }
}
