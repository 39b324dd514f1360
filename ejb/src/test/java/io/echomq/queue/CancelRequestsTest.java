package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.internal.QueueKeys;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A cancel requested for an active job is never dropped: whichever way the job leaves the
 * active set without committing (its holder stops it, its attempt fails, its lease expires), it
 * ends cancelled, not back in the queue for another attempt.
 */
class CancelRequestsTest extends RealQueueTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration SHORT_LEASE = Duration.ofMillis(40);

    private ClaimedJob claimWithCancelRequested(NewJob job, Duration lease) {
        Enqueued made = client.submissions().enqueue(queue, job);
        ClaimedJob claimed = client.leases().claim(queue, lease, 1, "worker-a").get(0);
        assertThat(claimed.id()).isEqualTo(made.id());
        assertThat(client.admin().cancel(queue, claimed.id())).isInstanceOf(ManualTransition.CancelRequested.class);
        return claimed;
    }

    private void assertEndedCancelled(String id) {
        JobView job = client.reads().job(queue, id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.CANCELLED);
        assertThat(redis.zscore(keys.cancelled(), id)).as("in the cancelled set").isNotNull();
        assertThat(redis.zscore(keys.active(), id)).as("out of the active set").isNull();
        assertThat(client.leases().claim(queue, LEASE, 1, "worker-b")).as("never offered again").isEmpty();
        assertThat(client.reads().stats(queue).cancelled()).isEqualTo(1);
    }

    @Test
    void aFailedAttemptOfAJobWhoseCancelWasRequestedEndsItCancelledInsteadOfRetryingIt() {
        ClaimedJob job = claimWithCancelRequested(NewJob.of("x").withMaxAttempts(5), LEASE);

        RetryOutcome outcome = client.leases().retry(job.lease(), "boom", Backoff.NONE, FailureKind.RETRYABLE);

        assertThat(outcome).isInstanceOf(RetryOutcome.Cancelled.class);
        assertEndedCancelled(job.id());
        assertThat(client.reads().history(queue, job.id())).extracting(JobEvent::event).endsWith("cancelled").doesNotContain("retried");
    }

    @Test
    void aRequestedCancelWinsOverARetryWithBackoffAndOverDeadLettering() {
        ClaimedJob delayedOtherwise = claimWithCancelRequested(NewJob.of("x").withMaxAttempts(5), LEASE);
        assertThat(client.leases().retry(delayedOtherwise.lease(), "boom", new Backoff(Duration.ofMinutes(1), Duration.ofMinutes(5)),
                FailureKind.RETRYABLE)).isInstanceOf(RetryOutcome.Cancelled.class);
        assertEndedCancelled(delayedOtherwise.id());

        queue = queue + "-permanent";
        keys = new QueueKeys(queue);
        ClaimedJob deadOtherwise = claimWithCancelRequested(NewJob.of("y").withMaxAttempts(1), LEASE);
        assertThat(client.leases().retry(deadOtherwise.lease(), "bad input", Backoff.NONE, FailureKind.PERMANENT))
                .isInstanceOf(RetryOutcome.Cancelled.class);
        assertEndedCancelled(deadOtherwise.id());
    }

    @Test
    void anExpiredLeaseOfAJobWhoseCancelWasRequestedIsReapedToCancelledNotBackToPending() {
        ClaimedJob job = claimWithCancelRequested(NewJob.of("x").withMaxAttempts(5), SHORT_LEASE);
        awaitServerTime(job.leaseUntil().toEpochMilli() + 1);

        ReapResult reaped = client.admin().reap(queue, 100);

        assertThat(reaped.toCancelled()).isEqualTo(1);
        assertThat(reaped.toPending()).isZero();
        assertThat(reaped.jobIds()).containsExactly(job.id());
        assertEndedCancelled(job.id());
        assertThat(client.reads().history(queue, job.id())).extracting(JobEvent::event).endsWith("cancelled").doesNotContain("reaped");
        assertThat(client.leases().complete(job.lease())).as("its late holder cannot complete it").isInstanceOf(Rejected.class);
    }

    @Test
    void aCancelledJobWhoseEffectCommittedAfterAllIsCompletedByTheReconciler() {
        ClaimedJob job = claimWithCancelRequested(NewJob.of("x"), SHORT_LEASE);
        awaitServerTime(job.leaseUntil().toEpochMilli() + 1);
        client.admin().reap(queue, 100);

        ManualTransition reconciled = client.admin().reconcile(queue, job.id(), job.lease().jobCreatedMs(), "its effect committed");

        assertThat(reconciled).isInstanceOf(ManualTransition.Moved.class);
        assertThat(client.reads().job(queue, job.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void withoutACancelRequestAnExpiredLeaseStillGoesBackToPending() {
        Enqueued made = client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(5));
        ClaimedJob job = client.leases().claim(queue, SHORT_LEASE, 1, "worker-a").get(0);
        awaitServerTime(job.leaseUntil().toEpochMilli() + 1);

        ReapResult reaped = client.admin().reap(queue, 100);

        assertThat(reaped.toPending()).isEqualTo(1);
        assertThat(reaped.toCancelled()).isZero();
        assertThat(client.reads().job(queue, made.id()).orElseThrow().state()).isEqualTo(JobState.PENDING);
    }
}
