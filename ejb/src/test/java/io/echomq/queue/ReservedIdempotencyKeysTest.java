package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The jobs of recurring schedules are keyed {@code schedule:<name>:<slot ms>}: a submission may
 * not use that prefix, or it could take a slot and replace the schedule's job with its own.
 */
class ReservedIdempotencyKeysTest extends RealQueueTest {

    @Test
    void aSubmissionUnderAScheduleSlotsKeyIsRefusedNamingTheFieldAndStoresNothing() {
        assertThatThrownBy(() -> client.submissions().enqueue(queue, NewJob.of("mine").withIdempotencyKey("schedule:nightly:1767236400000")))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
                    assertThat(e.field()).isEqualTo("idempotencyKey");
                    assertThat(e.getMessage()).contains("reserved for the jobs of recurring schedules");
                });
        assertThatThrownBy(() -> client.submissions().enqueueBatch(queue, List.of(NewJob.of("a"), NewJob.of("b").withIdempotencyKey("schedule:x"))))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("jobs[1].idempotencyKey"));

        assertThat(client.reads().stats(queue).total()).isZero();
    }

    @Test
    void keysThatOnlyLookAlikeAreStillTheSubmittersOwn() {
        for (String key : List.of("Schedule:nightly:1", "my-schedule:nightly:1", "schedule")) {
            assertThat(client.submissions().enqueue(queue, NewJob.of("x").withIdempotencyKey(key)).replayed()).as(key).isFalse();
        }
    }
}
