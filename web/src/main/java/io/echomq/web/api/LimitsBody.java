package io.echomq.web.api;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueLimits;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * A queue's limits as PUT and as answered: {@code {"maxActive": 50, "rate": {"starts": 100,
 * "windowMs": 1000}, "laneMaxActive": 2, "laneRate": {"starts": 10, "windowMs": 60000}}}; an
 * absent (or null) field is no limit of that kind, so a PUT replaces every limit and {@code {}}
 * clears them. A field the body names that is not one of these is refused: read as absent, a
 * misspelt limit would clear the one it meant to set.
 */
public record LimitsBody(Integer maxActive, RateBody rate, Integer laneMaxActive, RateBody laneRate) {

    private static final Set<String> FIELDS = Set.of("maxActive", "rate", "laneMaxActive", "laneRate");
    private static final Set<String> RATE_FIELDS = Set.of("starts", "windowMs");

    /** At most {@code starts} jobs started in any {@code windowMs}. */
    public record RateBody(int starts, JsonNumber windowMs) {

        static RateBody of(QueueLimits.Rate rate) {
            return new RateBody(rate.starts(), JsonProcessing.PROVIDER.createValue(rate.window().toMillis()));
        }
    }

    /**
     * The engine's limits from a PUT's body (read here, not bound by JSON-B, which would pass a
     * misspelt field over), each field checked for its kind here and for its range by
     * {@link QueueLimits#check}.
     */
    static QueueLimits parse(String text) {
        JsonValue value = text == null || text.isBlank() ? null
                : JsonProcessing.PROVIDER.createReader(new StringReader(text)).readValue();
        if (!(value instanceof JsonObject body)) {
            throw new InvalidRequestException("body", "must be a JSON object of limits ({} clears every limit)");
        }
        onlyKnown(body, FIELDS, "");
        return new QueueLimits(count(body, "maxActive", ""), rate(body, "rate"), count(body, "laneMaxActive", ""), rate(body, "laneRate"));
    }

    private static void onlyKnown(JsonObject object, Set<String> known, String at) {
        for (String name : object.keySet()) {
            if (!known.contains(name)) {
                throw new InvalidRequestException(at + name, "is not a field of " + (at.isEmpty() ? "a queue's limits" : "a rate limit")
                        + "; the fields are " + known.stream().sorted().toList());
            }
        }
    }

    private static Optional<Integer> count(JsonObject object, String name, String at) {
        JsonValue value = object.get(name);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return Optional.empty();
        }
        if (!(value instanceof JsonNumber number) || !number.isIntegral()) {
            throw new InvalidRequestException(at + name, "must be a whole number, was " + value);
        }
        try {
            return Optional.of(number.intValueExact());
        } catch (ArithmeticException e) {
            throw new InvalidRequestException(at + name, "must be a whole number within range, was " + value);
        }
    }

    private static Optional<QueueLimits.Rate> rate(JsonObject body, String name) {
        JsonValue value = body.get(name);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return Optional.empty();
        }
        if (!(value instanceof JsonObject rate)) {
            throw new InvalidRequestException(name, "must be an object {\"starts\": n, \"windowMs\": n}, was " + value);
        }
        String at = name + ".";
        onlyKnown(rate, RATE_FIELDS, at);
        Integer starts = count(rate, "starts", at).orElseThrow(
                () -> new InvalidRequestException(at + "starts", "is required: a rate limit is so many starts per window"));
        JsonValue window = rate.get("windowMs");
        if (!(window instanceof JsonNumber windowMs)) {
            throw new InvalidRequestException(at + "windowMs", "is required (ms): a rate limit is so many starts per window");
        }
        return Optional.of(new QueueLimits.Rate(starts, Duration.ofMillis(JobRequest.wholeMillis(at + "windowMs", windowMs))));
    }

    static LimitsBody of(QueueLimits limits) {
        return new LimitsBody(limits.maxActive().orElse(null), limits.rate().map(RateBody::of).orElse(null),
                limits.laneMaxActive().orElse(null), limits.laneRate().map(RateBody::of).orElse(null));
    }
}
