package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueLimits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A PUT of a queue's limits: what each field becomes, and the field each refusal names. */
class LimitsBodyTest {

    @Test
    void everyFieldBecomesItsLimit() {
        QueueLimits limits = LimitsBody.parse("""
                {"maxActive": 50, "rate": {"starts": 100, "windowMs": 1000},
                 "laneMaxActive": 2, "laneRate": {"starts": 10, "windowMs": 60000}}""");

        assertThat(limits).isEqualTo(QueueLimits.NONE.withMaxActive(50).withRate(100, Duration.ofSeconds(1)).withLaneMaxActive(2)
                .withLaneRate(10, Duration.ofMinutes(1)));
        assertThat(LimitsBody.of(limits)).satisfies(body -> {
            assertThat(body.maxActive()).isEqualTo(50);
            assertThat(body.laneRate().windowMs().longValue()).isEqualTo(60_000);
        });
    }

    @Test
    void anEmptyObjectOrNullsClearEveryLimit() {
        assertThat(LimitsBody.parse("{}")).isEqualTo(QueueLimits.NONE);
        assertThat(LimitsBody.parse("{\"maxActive\": null, \"rate\": null}")).isEqualTo(QueueLimits.NONE);
    }

    @Test
    void aMisspeltFieldIsRefusedRatherThanReadAsNoLimit() {
        assertRefused("{\"maxactive\": 5}", "maxactive");
        assertRefused("{\"rate\": {\"starts\": 5, \"windowMs\": 100, \"burst\": 2}}", "rate.burst");
    }

    @Test
    void eachRefusalNamesItsField() {
        assertRefused("{\"maxActive\": 1.5}", "maxActive");
        assertRefused("{\"laneMaxActive\": \"two\"}", "laneMaxActive");
        assertRefused("{\"rate\": {\"starts\": 5}}", "rate.windowMs");
        assertRefused("{\"laneRate\": {\"windowMs\": 5}}", "laneRate.starts");
        assertRefused("{\"rate\": 5}", "rate");
        assertRefused("[]", "body");
        assertRefused("", "body");
    }

    private static void assertRefused(String body, String field) {
        assertThatThrownBy(() -> LimitsBody.parse(body)).isInstanceOfSatisfying(InvalidRequestException.class,
                e -> assertThat(e.field()).isEqualTo(field));
    }
}
