package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueLimits;
import jakarta.json.JsonNumber;
import java.time.Duration;
import java.util.Optional;

/**
 * A queue's limits as PUT and as answered: {@code {"maxActive": 50, "rate": {"starts": 100,
 * "windowMs": 1000}, "laneMaxActive": 2, "laneRate": {"starts": 10, "windowMs": 60000}}}; an
 * absent (or null) field is no limit of that kind, so a PUT replaces every limit and {@code {}}
 * clears them.
 */
public record LimitsBody(Integer maxActive, RateBody rate, Integer laneMaxActive, RateBody laneRate) {

    /** At most {@code starts} jobs started in any {@code windowMs}. */
    public record RateBody(Integer starts, JsonNumber windowMs) {

        QueueLimits.Rate toRate(String field) {
            if (starts == null) {
                throw new InvalidRequestException(field + ".starts", "is required: a rate limit is so many starts per window");
            }
            if (windowMs == null) {
                throw new InvalidRequestException(field + ".windowMs", "is required: a rate limit is so many starts per window");
            }
            return new QueueLimits.Rate(starts, Duration.ofMillis(JobRequest.wholeMillis(field + ".windowMs", windowMs)));
        }

        static RateBody of(QueueLimits.Rate rate) {
            return new RateBody(rate.starts(), JsonProcessing.PROVIDER.createValue(rate.window().toMillis()));
        }
    }

    /** The engine's limits; each value is checked by {@link QueueLimits#check} when they are set. */
    QueueLimits toLimits() {
        return new QueueLimits(Optional.ofNullable(maxActive), Optional.ofNullable(rate).map(r -> r.toRate("rate")),
                Optional.ofNullable(laneMaxActive), Optional.ofNullable(laneRate).map(r -> r.toRate("laneRate")));
    }

    static LimitsBody of(QueueLimits limits) {
        return new LimitsBody(limits.maxActive().orElse(null), limits.rate().map(RateBody::of).orElse(null),
                limits.laneMaxActive().orElse(null), limits.laneRate().map(RateBody::of).orElse(null));
    }
}
