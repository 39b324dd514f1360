package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.InvalidRequestException;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every JSON body the API takes, bound as its reader binds it: each field's kind, what a refusal
 * names and what it says. (Each field's range is the engine's, tested there.)
 */
class BodyBindingTest {

    private static final Type BATCH = BatchParameter.type();

    /** Stands for the batch resource's parameter type, {@code List<JobBody>}. */
    private abstract static class BatchParameter implements java.util.function.Supplier<List<JobBody>> {
        static Type type() {
            return ((java.lang.reflect.ParameterizedType) BatchParameter.class.getGenericInterfaces()[0]).getActualTypeArguments()[0];
        }
    }

    private static JsonValue json(String text) {
        try (JsonReader reader = JsonProcessing.PROVIDER.createReader(new StringReader(text))) {
            return reader.readValue();
        }
    }

    private static JobBody job(String text) {
        return BodyBinding.bind(json(text), JobBody.class);
    }

    @Test
    void aJobsFieldsAreBoundToTheirTypes() {
        JobBody job = job("""
                {"payload": {"a": [1, 2]}, "lane": "l", "delayMs": 5000, "maxAttempts": 3, "idempotencyKey": "k",
                 "priority": 9, "dedupe": {"key": "d", "windowMs": 1000, "mode": "THROTTLE"}, "unknown": true}""");

        assertThat(job.payload().toString()).isEqualTo("{\"a\":[1,2]}");
        assertThat(job).extracting(JobBody::lane, JobBody::delayMs, JobBody::maxAttempts, JobBody::idempotencyKey,
                JobBody::priority).containsExactly("l", 5000L, 3, "k", 9);
        assertThat(job.dedupe()).isEqualTo(new JobBody.DedupeBody("d", 1000L, "THROTTLE"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "1798761600000              | 2027-01-01T00:00:00Z",
            "\"2027-01-01T00:00:00Z\"   | 2027-01-01T00:00:00Z",
            "\"2027-01-01T02:00:00+02:00\" | 2027-01-01T00:00:00Z",
            "\"2027-01-01T00:00:00.250Z\" | 2027-01-01T00:00:00.250Z",
            "1798761600000.0            | 2027-01-01T00:00:00Z"})
    void runAtIsAnIso8601InstantOrMillisecondsSinceTheEpoch(String runAt, String instant) {
        assertThat(job("{\"payload\": 1, \"runAt\": " + runAt + "}").runAt()).isEqualTo(Instant.parse(instant));
    }

    @Test
    void aWholeNumberWrittenWithAFractionOrExponentIsThatNumber() {
        assertThat(job("{\"payload\": 1, \"maxAttempts\": 3.0, \"delayMs\": 5e3}"))
                .extracting(JobBody::maxAttempts, JobBody::delayMs).containsExactly(3, 5000L);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // wrong type
            "{\"payload\": 1, \"priority\": \"high\"}          | priority    | must be a whole number, was \"high\"",
            "{\"payload\": 1, \"delayMs\": \"5\"}              | delayMs     | must be a whole number, was \"5\"",
            "{\"payload\": 1, \"maxAttempts\": true}           | maxAttempts | must be a whole number, was true",
            "{\"payload\": 1, \"lane\": 5}                     | lane        | must be a string, was 5",
            "{\"payload\": 1, \"idempotencyKey\": {}}          | idempotencyKey | must be a string, was an object",
            // a fraction where a whole number belongs
            "{\"payload\": 1, \"maxAttempts\": 2.5}            | maxAttempts | must be a whole number, was 2.5",
            "{\"payload\": 1, \"delayMs\": 1e-3}               | delayMs     | must be a whole number, was 0.001",
            // beyond the type
            "{\"payload\": 1, \"maxAttempts\": 99999999999}    | maxAttempts | must be a whole number from -2147483648 to 2147483647, was 99999999999",
            "{\"payload\": 1, \"delayMs\": 1e999}              | delayMs     | must be a whole number from",
            "{\"payload\": 1, \"runAt\": 1e999}                | runAt       | must be a whole number from",
            "{\"payload\": 1, \"dedupe\": {\"windowMs\": 1e999}} | dedupe.windowMs | must be a whole number from",
            // bad format
            "{\"payload\": 1, \"runAt\": \"2027-01-01T00:00:00\"} | runAt    | must be an ISO-8601 instant such as \"2027-01-01T00:00:00Z\" or a whole number of milliseconds since the epoch, was \"2027-01-01T00:00:00\"",
            "{\"payload\": 1, \"runAt\": \"2027-13-01T00:00:00Z\"} | runAt    | must be an ISO-8601 instant",
            "{\"payload\": 1, \"runAt\": \"tomorrow\"}          | runAt       | must be an ISO-8601 instant",
            "{\"payload\": 1, \"runAt\": 1.5}                  | runAt       | must be an ISO-8601 instant",
            "{\"payload\": 1, \"dedupe\": {\"key\": \"k\", \"windowMs\": 5, \"mode\": \"leading\"}} | dedupe.mode | must be debounce or throttle",
            // array for object
            "{\"payload\": 1, \"dedupe\": []}                  | dedupe      | must be an object {key, windowMs, mode}, was an array",
            "[]                                               | body        | must be an object {payload, lane, delayMs, maxAttempts, idempotencyKey, runAt, priority, dedupe}, was an array",
            // null or absent where required
            "{\"payload\": null}                              | payload     | is required",
            "{\"lane\": \"l\"}                                 | payload     | is required"})
    void aBadFieldOfAJobIsRefusedNamingItAndWhatItTakes(String body, String field, String message) {
        assertThatThrownBy(() -> job(body)).isInstanceOfSatisfying(InvalidRequestException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).startsWith(field + ": " + message).doesNotContainPattern("[a-z]+\\.[a-z]+\\.[A-Z]|@[0-9a-f]{6}");
        });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"payload\": 1}                                 | jobs          | must be an array, each an object {payload,",
            "[{\"payload\": 1}, null]                         | jobs[1]       | is required: an object {payload,",
            "[{\"payload\": 1}, 5]                            | jobs[1]       | must be an object {payload,",
            "[{\"payload\": 1}, {\"payload\": 1, \"maxAttempts\": 2.5}] | jobs[1].maxAttempts | must be a whole number, was 2.5",
            "[{\"payload\": 1}, {\"lane\": \"l\"}]             | jobs[1].payload | is required",
            "[{\"payload\": 1, \"dedupe\": {\"mode\": \"x\"}}] | jobs[0].dedupe.mode | must be debounce or throttle"})
    void aBadJobInABatchIsNamedByItsPlace(String body, String field, String message) {
        assertThatThrownBy(() -> BodyBinding.bind(json(body), BATCH, "jobs")).isInstanceOfSatisfying(InvalidRequestException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).startsWith(field + ": " + message);
        });
    }

    @Test
    void aBatchIsBoundJobByJob() {
        @SuppressWarnings("unchecked")
        List<JobBody> jobs = (List<JobBody>) BodyBinding.bind(json("[{\"payload\": 1}, {\"payload\": 2, \"lane\": \"b\"}]"), BATCH,
                "jobs");
        assertThat(jobs).extracting(JobBody::lane).containsExactly(null, "b");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"intervalMs\": 1000.5}                  | intervalMs     | must be a whole number, was 1000.5",
            "{\"intervalMs\": \"1000\"}                | intervalMs     | must be a whole number",
            "{\"cron\": 5}                             | cron           | must be a string",
            "{\"zone\": []}                            | zone           | must be a string, was an array",
            "{\"misfireLimit\": 1.5}                   | misfireLimit   | must be a whole number",
            "{\"misfireGraceMs\": true}                | misfireGraceMs | must be a whole number",
            "{\"maxAttempts\": \"3\"}                  | maxAttempts    | must be a whole number",
            "[]                                       | body           | must be an object {queue, name, cron,"})
    void aBadFieldOfAScheduleIsRefusedNamingIt(String body, String field, String message) {
        assertThatThrownBy(() -> BodyBinding.bind(json(body), ScheduleRequest.class)).isInstanceOfSatisfying(InvalidRequestException.class,
                e -> assertThat(e.getMessage()).startsWith(field + ": " + message));
    }

    @Test
    void aScheduleAsAnsweredCanBeSentBackItsOtherFieldsPassedOver() {
        ScheduleRequest request = BodyBinding.bind(json("""
                {"queue": "q", "name": "n", "kind": "interval", "intervalMs": 60000, "paused": false, "fired": 3,
                 "nextSlot": "2027-01-01T00:00:00Z", "history": [{"event": "fired"}]}"""), ScheduleRequest.class);
        assertThat(request.intervalMs()).isEqualTo(60_000L);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"runAt\": \"2027-01-01\"}              | runAt   | must be an ISO-8601 instant",
            "{\"runAt\": {}}                          | runAt   | must be an ISO-8601 instant",
            "{\"delayMs\": 2.5}                       | delayMs | must be a whole number, was 2.5",
            "{\"delayMs\": []}                        | delayMs | must be a whole number, was an array"})
    void aBadDueChangeIsRefusedNamingItsField(String body, String field, String message) {
        assertThatThrownBy(() -> BodyBinding.bind(json(body), DueChange.class)).isInstanceOfSatisfying(InvalidRequestException.class,
                e -> assertThat(e.getMessage()).startsWith(field + ": " + message));
    }

    @Test
    void aDueChangeTakesAnIsoInstant() {
        assertThat(BodyBinding.bind(json("{\"runAt\": \"2027-01-01T00:00:00Z\"}"), DueChange.class))
                .isEqualTo(new DueChange(Instant.parse("2027-01-01T00:00:00Z"), null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"mode\": 5, \"crashPoint\": \"ack\"}", "{\"mode\": [], \"crashPoint\": \"ack\"}"})
    void aLabRunsModeMustBeAString(String body) {
        assertThatThrownBy(() -> BodyBinding.bind(json(body), LabResource.LabRequest.class))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("mode"));
    }

    @Test
    void jsonNullIsNoBody() {
        assertThat(BodyBinding.bind(JsonValue.NULL, JobBody.class)).isNull();
    }

    @Test
    void itBindsEveryBodyTheApiTakesAndNothingElse() {
        assertThat(List.of(JobBody.class, BATCH, ScheduleRequest.class, LimitsBody.class, DueChange.class,
                LabResource.LabRequest.class)).allMatch(BodyBinding::binds);
        assertThat(List.<Type>of(String.class, List.class, JsonValue.class)).noneMatch(BodyBinding::binds);
    }
}
