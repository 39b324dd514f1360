package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.internal.QueueKeys;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Flows through the scripts: a parent waits until each child's settlement notice is applied
 * (docs/ARCHITECTURE.md, F1-F6), each edge once however often it is sent, each failure policy
 * ends the wait, and nothing a waiting parent still needs is trimmed. The relay's steps are
 * called here one by one, so a crash between any two is a test that stops calling.
 */
class FlowsTest extends RealQueueTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    /** The children's second queue (on a cluster, likely another master). */
    private String other;

    @BeforeEach
    void otherQueue() {
        other = queue + "-other";
    }

    private FlowSubmitted submit(NewFlow flow) {
        return client.flows().submit(flow);
    }

    private static NewFlow leaf(String queue, String payload) {
        return NewFlow.of(queue, NewJob.of(payload));
    }

    /** Claims the one pending job of {@code q} (failing when there is none or it is another). */
    private ClaimedJob claimOnly(String q, String payload) {
        List<ClaimedJob> claimed = client.leases().claim(q, LEASE, 1, "worker");
        assertThat(claimed).as("a pending job on " + q).hasSize(1);
        assertThat(claimed.get(0).payload()).isEqualTo(payload);
        return claimed.get(0);
    }

    private void complete(String q, String payload) {
        assertThat(client.leases().complete(claimOnly(q, payload).lease())).isInstanceOf(Settlement.class);
    }

    private void failForGood(String q, String payload) {
        ClaimedJob job = claimOnly(q, payload);
        assertThat(client.leases().retry(job.lease(), "bad input", Backoff.NONE, FailureKind.PERMANENT)).isInstanceOf(RetryOutcome.DeadLettered.class);
    }

    /** One run of the relay over the given queues; answers what each notice did. */
    private List<String> relay(String... queues) {
        List<String> outcomes = new java.util.ArrayList<>();
        for (String q : queues) {
            for (Flows.Notice notice : client.flows().notices(q, 100)) {
                outcomes.add(client.flows().apply(notice).outcome());
            }
            for (Flows.ChildCancels cancels : client.flows().childCancels(q, 100)) {
                client.flows().cancel(cancels);
            }
        }
        return outcomes;
    }

    private JobState state(String q, String id) {
        return client.reads().job(q, id).orElseThrow().state();
    }

    @Test
    void aParentWaitsUntilEveryChildOnEveryQueueSettledThenRunsAndReadsTheirOutcomes() {
        FlowSubmitted parent = submit(NewFlow.of(queue, NewJob.of("summary"), leaf(queue, "row-0"), leaf(other, "row-1")));

        assertThat(parent.state()).isEqualTo(JobState.WAITING_CHILDREN);
        assertThat(client.reads().stats(queue).waitingChildren()).isEqualTo(1);
        assertThat(client.reads().job(queue, parent.id()).orElseThrow().flowChildren()).isEqualTo(2);
        String second = client.flows().children(queue, parent.id()).get(1).jobId().orElseThrow();
        assertThat(client.reads().job(other, second).orElseThrow().flowParent())
                .contains(new JobView.FlowParent(queue, parent.id(), parent.createdMs(), 1, ChildFailure.FAIL_PARENT));
        complete(queue, "row-0");
        assertThat(relay(queue, other)).containsExactly("MARKED");
        assertThat(state(queue, parent.id())).as("one child of two settled").isEqualTo(JobState.WAITING_CHILDREN);
        assertThat(client.leases().claim(queue, LEASE, 10, "worker")).as("a waiting parent is claimed by no worker").isEmpty();

        complete(other, "row-1");
        assertThat(relay(queue, other)).containsExactly("RELEASED");

        assertThat(state(queue, parent.id())).isEqualTo(JobState.PENDING);
        assertThat(client.reads().stats(queue).waitingChildren()).isZero();
        assertThat(client.flows().children(queue, parent.id())).extracting(FlowChild::queue, FlowChild::outcome)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(queue, Optional.of("completed")),
                        org.assertj.core.groups.Tuple.tuple(other, Optional.of("completed")));
        complete(queue, "summary");
    }

    @Test
    void aNoticeSentAgainAfterACrashBeforeItsAcknowledgementMovesTheParentsCountOnce() {
        FlowSubmitted parent = submit(NewFlow.of(queue, NewJob.of("p"), leaf(other, "a"), leaf(other, "b")));
        complete(other, "a");
        Flows.Notice notice = client.flows().notices(other, 10).get(0);

        assertThat(client.flows().apply(notice).outcome()).isEqualTo("MARKED");
        // The relay died after the parent's mark and before the acknowledgement: the notice is there again.
        redis.hset(new QueueKeys(other).notices(), notice.childId(), notice.text());
        assertThat(relay(other)).containsExactly("ALREADY");

        assertThat(state(queue, parent.id())).isEqualTo(JobState.WAITING_CHILDREN);
        assertThat(redis.hget(keys.job(parent.id()), "flow_settled")).isEqualTo("1");
        assertThat(client.flows().notices(other, 10)).as("acknowledged once applied again").isEmpty();
        complete(other, "b");
        assertThat(relay(other)).containsExactly("RELEASED");
    }

    @Test
    void aDeadChildWithPolicyFailParentFailsTheParentAndCancelsItsSiblingsThatHaveNotStarted() {
        FlowSubmitted parent = submit(NewFlow.of(queue, NewJob.of("p"), leaf(other, "bad"), leaf(other, "later"), leaf(queue, "also-later")));

        failForGood(other, "bad");
        assertThat(relay(other)).containsExactly("FAILED");
        relay(queue);

        JobView failed = client.reads().job(queue, parent.id()).orElseThrow();
        assertThat(failed.state()).isEqualTo(JobState.DEAD);
        assertThat(failed.lastError()).hasValueSatisfying(e -> assertThat(e).contains("child 0").contains("dead"));
        assertThat(client.reads().stats(other).cancelled()).as("the sibling on the child's queue").isEqualTo(1);
        assertThat(client.reads().stats(queue).cancelled()).as("the sibling on the parent's queue").isEqualTo(1);
        assertThat(client.leases().claim(other, LEASE, 10, "w")).isEmpty();
        assertThat(relay(queue, other)).as("the cancelled siblings' notices reach a parent that no longer waits").containsOnly("LATE");
    }

    @Test
    void aDeadChildWithPolicyRunParentLetsTheParentRunAndSeeTheFailure() {
        FlowSubmitted parent = submit(NewFlow.of(queue, NewJob.of("p"), leaf(other, "bad").onFailure(ChildFailure.RUN_PARENT),
                leaf(other, "good")));

        failForGood(other, "bad");
        complete(other, "good");
        relay(other);

        assertThat(state(queue, parent.id())).isEqualTo(JobState.PENDING);
        assertThat(client.flows().children(queue, parent.id())).extracting(FlowChild::outcome)
                .containsExactly(Optional.of("dead"), Optional.of("completed"));
    }

    @Test
    void aCancelledChildWithPolicyDropIsDroppedFromTheWait() {
        FlowSubmitted parent = submit(NewFlow.of(queue, NewJob.of("p"), leaf(other, "dropped").onFailure(ChildFailure.DROP),
                leaf(other, "kept")));
        String dropped = client.flows().children(queue, parent.id()).get(0).jobId().orElseThrow();

        assertThat(client.admin().cancel(other, dropped)).isInstanceOf(ManualTransition.Moved.class);
        complete(other, "kept");
        relay(other);

        assertThat(state(queue, parent.id())).isEqualTo(JobState.PENDING);
        assertThat(client.flows().children(queue, parent.id())).extracting(FlowChild::dropped).containsExactly(true, false);
    }

    @Test
    void aNestedFlowReleasesItsRootOnlyAfterItsInnerParentRanAndSettled() {
        FlowSubmitted root = submit(NewFlow.of(queue, NewJob.of("root"), NewFlow.of(other, NewJob.of("inner"), leaf(queue, "leaf"))));
        String inner = client.flows().children(queue, root.id()).get(0).jobId().orElseThrow();
        assertThat(state(other, inner)).isEqualTo(JobState.WAITING_CHILDREN);

        complete(queue, "leaf");
        assertThat(relay(queue)).containsExactly("RELEASED");
        assertThat(state(other, inner)).isEqualTo(JobState.PENDING);
        assertThat(state(queue, root.id())).isEqualTo(JobState.WAITING_CHILDREN);

        complete(other, "inner");
        assertThat(relay(other)).containsExactly("RELEASED");
        assertThat(state(queue, root.id())).isEqualTo(JobState.PENDING);
    }

    @Test
    void theRepairMakesAChildItsSubmitterNeverMadeAndFindsOneItMadeButNeverMarked() {
        FlowSubmitted parent = submit(NewFlow.of(queue, NewJob.of("p"), leaf(other, "made"), leaf(other, "lost")));
        List<FlowChild> children = client.flows().children(queue, parent.id());
        String made = children.get(0).jobId().orElseThrow();
        String lost = children.get(1).jobId().orElseThrow();
        // As if the submitter died after making child 0 and before marking it, and before making child 1 at all.
        QueueKeys otherKeys = new QueueKeys(other);
        redis.hdel(keys.flow(parent.id()), "child:0", "child:1");
        redis.hset(keys.job(parent.id()), "flow_created", "0");
        redis.del(otherKeys.job(lost));
        redis.hdel(otherKeys.idempotency(), redis.hgetAll(otherKeys.idempotency()).entrySet().stream()
                .filter(e -> e.getValue().equals(lost)).map(Map.Entry::getKey).toArray(String[]::new));
        redis.zrem(otherKeys.pending("default"), lost);

        Flows.MissingChildren missing = client.flows().parentsMissingChildren(queue, 0, 0, serverNowMs() + 1, 10);
        assertThat(missing.parents()).extracting(Flows.WaitingParent::id).containsExactly(parent.id());
        assertThat(client.flows().makeMissingChildren(queue, parent.id(), parent.createdMs())).isEqualTo(2);

        List<FlowChild> repaired = client.flows().children(queue, parent.id());
        assertThat(repaired.get(0).jobId()).as("found by its derived key, not made again").contains(made);
        assertThat(repaired.get(1).jobId()).isPresent().isNotEqualTo(Optional.of(lost));
        assertThat(client.reads().stats(other).pending()).as("one job per child").isEqualTo(2);
        assertThat(client.flows().parentsMissingChildren(queue, 0, 0, serverNowMs() + 1, 10).parents()).isEmpty();
        assertThat(client.flows().makeMissingChildren(queue, parent.id(), parent.createdMs())).as("nothing left to repair").isZero();
    }

    @Test
    void retentionKeepsASettledChildUntilItsParentAcknowledgedItsNotice() {
        submit(NewFlow.of(queue, NewJob.of("p"), leaf(other, "a"), leaf(other, "b")));
        complete(other, "a");
        Retention keepNothing = new Retention(0, Duration.ZERO, 0, Duration.ZERO, 100);

        assertThat(client.admin().trim(other, keepNothing).total()).isZero();
        assertThat(client.reads().stats(other).completed()).as("kept while its notice waits").isEqualTo(1);

        relay(other);
        assertThat(client.admin().trim(other, keepNothing).completed()).isEqualTo(1);
        assertThat(client.reads().stats(other).completed()).isZero();
    }

    @Test
    void aCancelledWaitingParentEndsCancelledAndCancelsItsChildren() {
        FlowSubmitted parent = submit(NewFlow.of(queue, NewJob.of("p"), leaf(other, "a"), leaf(other, "b")));

        assertThat(client.admin().remove(queue, parent.id())).as("a waiting parent is not finished").isInstanceOf(ManualTransition.Refused.class);
        assertThat(client.admin().cancel(queue, parent.id())).isInstanceOf(ManualTransition.Moved.class);
        relay(queue);

        assertThat(state(queue, parent.id())).isEqualTo(JobState.CANCELLED);
        assertThat(client.reads().stats(other).cancelled()).isEqualTo(2);
        assertThat(client.reads().stats(queue).waitingChildren()).isZero();
    }

    @Test
    void aFlowSubmittedAgainWithItsKeyAnswersTheFirstAndMakesNoOtherJob() {
        NewFlow flow = NewFlow.of(queue, NewJob.of("p").withIdempotencyKey("import-7"), leaf(other, "a"), leaf(other, "b"));

        FlowSubmitted first = submit(flow);
        FlowSubmitted again = submit(flow);

        assertThat(again.replayed()).isTrue();
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(client.reads().stats(other).pending()).isEqualTo(2);
        assertThat(client.reads().stats(queue).waitingChildren()).isEqualTo(1);
    }

    @Test
    void badInputIsRefusedNamingTheFieldOfTheNodeAtFault() {
        assertThatThrownBy(() -> submit(NewFlow.of(queue, NewJob.of("p"), leaf(other, "a"), NewFlow.of(other, NewJob.of("x".repeat(QueueSettings.ONE_MIB + 1))))))
                .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("children[1].payload");
        assertThatThrownBy(() -> submit(NewFlow.of(queue, NewJob.of("p"), NewFlow.of(other, NewJob.of("a").withIdempotencyKey("k")))))
                .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("children[0].idempotencyKey");
        assertThatThrownBy(() -> submit(NewFlow.of(queue, NewJob.of("p"), NewFlow.of("bad queue", NewJob.of("a")))))
                .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("children[0].queue");
        assertThatThrownBy(() -> submit(NewFlow.of(queue, NewJob.of("p"))))
                .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("children");
        assertThatThrownBy(() -> submit(NewFlow.of(queue, NewJob.of("p").withIdempotencyKey("flow:x"), leaf(other, "a"))))
                .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("idempotencyKey");
        assertThat(client.reads().stats(queue).total()).as("nothing stored").isZero();
    }
}
