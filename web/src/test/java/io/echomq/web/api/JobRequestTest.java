package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.Dedupe;
import io.echomq.queue.Enqueued;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobState;
import io.echomq.queue.NewJob;
import jakarta.json.JsonNumber;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A submission's body as the engine's job, and the answer's body: the dedupe part of both. */
class JobRequestTest {

    private static JsonNumber number(long value) {
        return JsonProcessing.PROVIDER.createValue(value);
    }

    private static JobRequest withDedupe(JobRequest.DedupeRequest dedupe, JsonNumber delayMs) {
        return new JobRequest(JsonProcessing.PROVIDER.createValue("x"), null, delayMs, null, null, null, null, dedupe);
    }

    @Test
    void aDedupePartBecomesTheJobsDedupe() {
        NewJob debounce = withDedupe(new JobRequest.DedupeRequest("user-42", number(5_000), "debounce"), null).toNewJob(Optional.empty());
        assertThat(debounce.dedupe()).contains(Dedupe.debounce("user-42", Duration.ofMillis(5_000)));
        NewJob throttle = withDedupe(new JobRequest.DedupeRequest("user-42", number(1), "THROTTLE"), null)
                .toNewJob(Optional.of("idem-1"));
        assertThat(throttle.dedupe()).contains(Dedupe.throttle("user-42", Duration.ofMillis(1)));
        assertThat(throttle.idempotencyKey()).as("the two keys go together").contains("idem-1");
        assertThat(withDedupe(null, null).toNewJob(Optional.empty()).dedupe()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
            "k, null, debounce, dedupe.windowMs",
            "k, 5000, null, dedupe.mode",
            "k, 5000, leading, dedupe.mode"})
    void aBadDedupePartIsRefusedNamingItsField(String key, Long windowMs, String mode, String field) {
        JobRequest request = withDedupe(new JobRequest.DedupeRequest(key, windowMs == null ? null : number(windowMs), mode), null);
        assertThatThrownBy(() -> request.toNewJob(Optional.empty()))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo(field));
    }

    @Test
    void aWindowBeyondALongIsRefusedNotWrapped() {
        JsonNumber huge = JsonProcessing.PROVIDER.createValue(new java.math.BigDecimal("1e999"));
        JobRequest request = withDedupe(new JobRequest.DedupeRequest("k", huge, "throttle"), null);
        assertThatThrownBy(() -> request.toNewJob(Optional.empty()))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("dedupe.windowMs"));
    }

    @Test
    void theAnswerSaysWhatTheSubmissionDid() {
        assertThat(Views.JobCreated.of(new Enqueued("q", "7", JobState.PENDING, false)))
                .isEqualTo(new Views.JobCreated("7", "q", "pending", false, "created"));
        assertThat(Views.JobCreated.of(new Enqueued("q", "7", JobState.PENDING, true)))
                .isEqualTo(new Views.JobCreated("7", "q", "pending", true, "duplicate"));
        assertThat(Views.JobCreated.of(new Enqueued("q", "7", JobState.DELAYED, false, Enqueued.Outcome.REPLACED)))
                .isEqualTo(new Views.JobCreated("7", "q", "delayed", false, "replaced"));
        assertThat(Views.JobCreated.of(new Enqueued("q", "7", null, false, Enqueued.Outcome.THROTTLED)))
                .as("a throttle window's job deleted since: no state").isEqualTo(new Views.JobCreated("7", "q", null, false, "throttled"));
    }
}
