package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.api.Job;
import io.echomq.outbox.OutboxRelay;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The jobs of recurring schedules are keyed {@code schedule:<name>:<slot ms>}: a submission may
 * not use that prefix, or it could take a slot and replace the schedule's job with its own. The
 * same holds for the keys of handlers' follow-ups ({@code followup:}) and of outbox rows relayed
 * without a key ({@code outbox:}), which only the outbox's door admits.
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

    @Test
    void aSubmitterCannotTakeAFollowUpsKeyBeforeItsJobMakesIt() {
        String followUpKey = new Job("orders", "41", 1767236400000L, 1, "default", "{}").followUpKey("render-invoice");

        assertThatThrownBy(() -> client.submissions().enqueue(queue, NewJob.of("mine").withIdempotencyKey(followUpKey)))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
                    assertThat(e.field()).isEqualTo("idempotencyKey");
                    assertThat(e.getMessage()).contains("reserved for the follow-up jobs of handlers");
                });
        assertThatThrownBy(() -> client.submissions().enqueueBatch(queue, List.of(NewJob.of("a"), NewJob.of("b").withIdempotencyKey(followUpKey))))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("jobs[1].idempotencyKey"));
        assertThatThrownBy(() -> client.submissions().check(queue, NewJob.of("mine").withIdempotencyKey(followUpKey)))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("idempotencyKey"));
        assertThatThrownBy(() -> client.flows().submit(NewFlow.of(queue, NewJob.of("parent").withIdempotencyKey(followUpKey),
                NewFlow.of(queue, NewJob.of("child")))))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("idempotencyKey"));

        assertThat(client.reads().stats(queue).total()).isZero();
    }

    @Test
    void aSubmitterCannotTakeTheKeyOfAnOutboxRowRelayedWithoutOne() {
        String rowKey = OutboxRelay.RELAY_KEY_PREFIX + "6f1c1d2e-0000-4000-8000-000000000001";

        assertThatThrownBy(() -> client.submissions().enqueue(queue, NewJob.of("mine").withIdempotencyKey(rowKey)))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
                    assertThat(e.field()).isEqualTo("idempotencyKey");
                    assertThat(e.getMessage()).contains("reserved for the jobs an outbox relays");
                });
        assertThat(client.reads().stats(queue).total()).isZero();
    }

    @Test
    void theOutboxsDoorSendsUnderTheKeysItMintsAndAnswersTheFirstJobWhenSentAgain() {
        String followUpKey = new Job("orders", "42", 1767236400000L, 1, "default", "{}").followUpKey("render-invoice");
        OutboxDoor door = client.submissions().outboxDoor();

        Enqueued first = door.enqueue(queue, NewJob.of("the follow-up").withIdempotencyKey(followUpKey), "");
        Enqueued again = door.enqueue(queue, NewJob.of("the follow-up").withIdempotencyKey(followUpKey), "");

        assertThat(again.id()).isEqualTo(first.id());
        assertThat(again.replayed()).isTrue();
        assertThat(client.reads().stats(queue).total()).isEqualTo(1);
        assertThatThrownBy(() -> door.enqueue(queue, NewJob.of("x").withIdempotencyKey("schedule:nightly:1"), ""))
                .as("the door opens only the outbox's prefixes").isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void keysThatOnlyLookLikeAFollowUpsAreStillTheSubmittersOwn() {
        for (String key : List.of("FollowUp:orders:1:2:x", "my-followup:1", "followup", "outbox", "Outbox:1")) {
            assertThat(client.submissions().enqueue(queue, NewJob.of("x").withIdempotencyKey(key)).replayed()).as(key).isFalse();
        }
    }
}
