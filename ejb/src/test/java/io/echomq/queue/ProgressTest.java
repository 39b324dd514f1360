package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A handler's progress rides on the fenced heartbeat (extend-2): recorded with the attempt that
 * reported it by the current lease only; a stale lease's report is refused and changes nothing
 * (invariant 4).
 */
class ProgressTest extends RealQueueTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private ClaimedJob claimOne(Duration lease) {
        List<ClaimedJob> jobs = client.leases().claim(queue, lease, 1, "w");
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    private Progress.Reported progressOf(String id) {
        return client.reads().job(queue, id).orElseThrow().progress().orElseThrow();
    }

    @Test
    void theCurrentLeasesProgressIsRecordedWithItsAttempt() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("x"));
        ClaimedJob claimed = claimOne(LEASE);
        assertThat(client.reads().job(queue, job.id()).orElseThrow().progress()).isEmpty();

        assertThat(client.leases().extend(claimed.lease(), LEASE, new Progress(42, "resizing"))).isInstanceOf(LeaseExtension.Extended.class);

        Progress.Reported reported = progressOf(job.id());
        assertThat(reported.percent()).isEqualTo(42);
        assertThat(reported.message()).isEqualTo("resizing");
        assertThat(reported.attempt()).isEqualTo(1);
        assertThat(client.leases().extend(claimed.lease(), LEASE)).as("a plain heartbeat keeps the last report")
                .isInstanceOf(LeaseExtension.Extended.class);
        assertThat(progressOf(job.id()).percent()).isEqualTo(42);
    }

    @Test
    void aStaleLeasesProgressIsRefusedAndChangesNothing() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("x"));
        ClaimedJob first = claimOne(Duration.ofMillis(20));
        awaitServerTimePast(first.leaseUntil());
        assertThat(client.admin().reap(queue, 10).jobIds()).containsExactly(first.id());
        ClaimedJob second = claimOne(LEASE);
        assertThat(client.leases().extend(second.lease(), LEASE, new Progress(10, "second attempt"))).isInstanceOf(LeaseExtension.Extended.class);

        assertThat(client.leases().extend(first.lease(), LEASE, new Progress(99, "zombie"))).isInstanceOfSatisfying(Rejected.class,
                r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.STALE_TOKEN));

        Progress.Reported reported = progressOf(job.id());
        assertThat(reported.percent()).isEqualTo(10);
        assertThat(reported.message()).isEqualTo("second attempt");
        assertThat(reported.attempt()).isEqualTo(2);
    }

    @Test
    void aRetryKeepsTheLastReportWithItsAttemptUntilTheNextAttemptReports() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(3));
        ClaimedJob first = claimOne(LEASE);
        client.leases().extend(first.lease(), LEASE, new Progress(70, "almost"));
        client.leases().retry(first.lease(), "boom", Backoff.NONE, FailureKind.RETRYABLE);

        assertThat(progressOf(job.id()).attempt()).as("kept, and says which attempt reported it").isEqualTo(1);
        ClaimedJob second = claimOne(LEASE);
        client.leases().extend(second.lease(), LEASE, new Progress(5, "again"));
        assertThat(progressOf(job.id())).extracting(Progress.Reported::percent, Progress.Reported::attempt).containsExactly(5, 2L);
    }

    @Test
    void progressIsBoundedAndChecked() {
        assertThatThrownBy(() -> new Progress(101, "x")).isInstanceOfSatisfying(InvalidRequestException.class,
                e -> assertThat(e.field()).isEqualTo("percent"));
        assertThatThrownBy(() -> new Progress(-1, "x")).isInstanceOf(InvalidRequestException.class);
        assertThat(new Progress(0, "a".repeat(500)).message()).hasSize(Progress.MAX_MESSAGE_CHARS);
        assertThat(new Progress(0, "line\nbreak\u0000").message()).isEqualTo("line break ");
        assertThat(new Progress(100, null).message()).isEmpty();
    }
}
