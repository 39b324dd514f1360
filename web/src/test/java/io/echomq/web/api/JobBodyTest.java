package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.Dedupe;
import io.echomq.queue.Enqueued;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobState;
import io.echomq.queue.NewJob;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A submission's body as the engine's job, and the answer's body: the dedupe part of both. */
class JobBodyTest {

    private static JobBody withDedupe(JobBody.DedupeBody dedupe, Long delayMs) {
        return new JobBody(JsonProcessing.PROVIDER.createValue("x"), null, delayMs, null, null, null, null, dedupe);
    }

    @Test
    void aDedupePartBecomesTheJobsDedupe() {
        NewJob debounce = withDedupe(new JobBody.DedupeBody("user-42", 5_000L, "debounce"), null).toNewJob(Optional.empty());
        assertThat(debounce.dedupe()).contains(Dedupe.debounce("user-42", Duration.ofMillis(5_000)));
        NewJob throttle = withDedupe(new JobBody.DedupeBody("user-42", 1L, "THROTTLE"), null)
                .toNewJob(Optional.of("idem-1"));
        assertThat(throttle.dedupe()).contains(Dedupe.throttle("user-42", Duration.ofMillis(1)));
        assertThat(throttle.idempotencyKey()).as("the two keys go together").contains("idem-1");
        assertThat(withDedupe(null, null).toNewJob(Optional.empty()).dedupe()).isEmpty();
    }

    @Test
    void aDedupeModeOtherThanDebounceOrThrottleIsRefusedNamingIt() {
        assertThatThrownBy(() -> new JobBody.DedupeBody("k", 5_000L, "leading"))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("mode"));
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
