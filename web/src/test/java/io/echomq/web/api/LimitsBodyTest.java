package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.limits.QueueLimits;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A PUT of a queue's limits: what each field becomes, and the field each refusal names. */
class LimitsBodyTest {

    private static QueueLimits parse(String body) {
        try (JsonReader reader = JsonProcessing.PROVIDER.createReader(new StringReader(body))) {
            return BodyBinding.bind(reader.readValue(), LimitsBody.class).toLimits();
        }
    }

    @Test
    void everyFieldBecomesItsLimit() {
        QueueLimits limits = parse("""
                {"maxActive": 50, "rate": {"starts": 100, "windowMs": 1000},
                 "laneMaxActive": 2, "laneRate": {"starts": 10, "windowMs": 60000}}""");

        assertThat(limits).isEqualTo(QueueLimits.NONE.withMaxActive(50).withRate(100, Duration.ofSeconds(1)).withLaneMaxActive(2)
                .withLaneRate(10, Duration.ofMinutes(1)));
        assertThat(LimitsBody.of(limits)).satisfies(body -> {
            assertThat(body.maxActive()).isEqualTo(50);
            assertThat(body.laneRate().windowMs()).isEqualTo(60_000);
        });
    }

    @Test
    void anEmptyObjectOrNullsClearEveryLimit() {
        assertThat(parse("{}")).isEqualTo(QueueLimits.NONE);
        assertThat(parse("{\"maxActive\": null, \"rate\": null}")).isEqualTo(QueueLimits.NONE);
    }

    @Test
    void aMisspeltFieldIsRefusedRatherThanReadAsNoLimit() {
        assertRefused("{\"maxactive\": 5}", "maxactive", "is not a field here; the fields are maxActive, rate, laneMaxActive, laneRate");
        assertRefused("{\"rate\": {\"starts\": 5, \"windowMs\": 100, \"burst\": 2}}", "rate.burst",
                "is not a field here; the fields are starts, windowMs");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"maxActive\": 1.5}                          | maxActive       | must be a whole number, was 1.5",
            "{\"laneMaxActive\": \"two\"}                  | laneMaxActive   | must be a whole number, was \"two\"",
            "{\"maxActive\": 99999999999}                  | maxActive       | must be a whole number from",
            "{\"rate\": {\"starts\": 5}}                   | rate.windowMs   | is required: a whole number",
            "{\"laneRate\": {\"windowMs\": 5}}             | laneRate.starts | is required: a whole number",
            "{\"laneRate\": {\"starts\": null, \"windowMs\": 5}} | laneRate.starts | is required: a whole number",
            "{\"rate\": {\"starts\": 5, \"windowMs\": 2.5}} | rate.windowMs  | must be a whole number, was 2.5",
            "{\"rate\": 5}                                | rate            | must be an object {starts, windowMs}, was 5",
            "{\"rate\": []}                               | rate            | must be an object {starts, windowMs}, was an array",
            "[]                                           | body            | must be an object {maxActive, rate, laneMaxActive, laneRate}"})
    void eachRefusalNamesItsFieldAndWhatItTakes(String body, String field, String message) {
        assertRefused(body, field, message);
    }

    private static void assertRefused(String body, String field, String message) {
        assertThatThrownBy(() -> parse(body)).isInstanceOfSatisfying(InvalidRequestException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).startsWith(field + ": " + message);
        });
    }
}
