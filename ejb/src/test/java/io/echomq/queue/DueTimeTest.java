package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Run-at submissions, promotion and rescheduling of delayed jobs, against a real server: every
 * due time is judged on the server's clock (invariant 3) and a job stays in exactly the structure
 * of its state (invariant 1).
 */
class DueTimeTest extends RealQueueTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private Double delayedScore(String id) {
        return redis.zscore(keys.delayed(), id);
    }

    @Test
    void aRunAtInTheServersFutureIsTheJobsDueTime() {
        long runAt = serverNowMs() + 60_000;
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("x").scheduledAt(Instant.ofEpochMilli(runAt)));

        assertThat(job.state()).isEqualTo(JobState.DELAYED);
        assertThat(delayedScore(job.id())).isEqualTo((double) runAt);
        assertThat(client.reads().job(queue, job.id()).orElseThrow().dueAt()).contains(Instant.ofEpochMilli(runAt));
        assertThat(client.leases().claim(queue, LEASE, 1, "w")).isEmpty();
    }

    @Test
    void aRunAtInThePastMeansNow() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("x").scheduledAt(Instant.ofEpochMilli(serverNowMs() - 5_000)));
        Enqueued epoch = client.submissions().enqueue(queue, NewJob.of("y").scheduledAt(Instant.EPOCH));

        assertThat(job.state()).isEqualTo(JobState.PENDING);
        assertThat(epoch.state()).isEqualTo(JobState.PENDING);
        assertThat(client.leases().claim(queue, LEASE, 2, "w")).extracting(ClaimedJob::id).containsExactly(job.id(), epoch.id());
    }

    @Test
    void aBatchCarriesRunAtPerJob() {
        long runAt = serverNowMs() + 60_000;
        List<Enqueued> jobs = client.submissions().enqueueBatch(queue, List.of(
                NewJob.of("later").scheduledAt(Instant.ofEpochMilli(runAt)),
                NewJob.of("now").scheduledAt(Instant.ofEpochMilli(1)),
                NewJob.of("delayed").delayedBy(Duration.ofMinutes(5)).withIdempotencyKey("k")));

        assertThat(jobs).extracting(Enqueued::state).containsExactly(JobState.DELAYED, JobState.PENDING, JobState.DELAYED);
        assertThat(delayedScore(jobs.get(0).id())).isEqualTo((double) runAt);
    }

    @Test
    void aDelayAndARunAtTogetherOrOutOfRangeAreRefusedNamingRunAt() {
        assertField("runAt", () -> client.submissions().enqueue(queue, NewJob.of("x").delayedBy(Duration.ofSeconds(1)).scheduledAt(Instant.now())));
        assertField("runAt", () -> client.submissions().enqueue(queue, NewJob.of("x").scheduledAt(Instant.ofEpochMilli(-1))));
        assertField("runAt", () -> client.submissions().enqueue(queue, NewJob.of("x").scheduledAt(Instant.parse("+10000-01-01T00:00:00Z"))));
        assertField("jobs[1].runAt", () -> client.submissions().enqueueBatch(queue, List.of(NewJob.of("a"),
                NewJob.of("b").scheduledAt(Instant.ofEpochMilli(-5)))));
        assertThat(client.reads().stats(queue).total()).as("a refused submission enqueues nothing").isZero();
    }

    @Test
    void promoteMakesADelayedJobPendingNow() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("x").inLane("l").delayedBy(Duration.ofHours(1)));

        assertThat(client.admin().promote(queue, job.id()))
                .isEqualTo(new ManualTransition.Moved(queue, job.id(), JobState.DELAYED, JobState.PENDING));

        assertThat(delayedScore(job.id())).isNull();
        assertThat(redis.zscore(keys.pending("l"), job.id())).isNotNull();
        assertThat(redis.lrange(keys.ring(), 0, -1)).containsExactly("l");
        assertThat(client.reads().job(queue, job.id()).orElseThrow().dueAt()).isEmpty();
        assertThat(client.leases().claim(queue, LEASE, 1, "w")).extracting(ClaimedJob::id).containsExactly(job.id());
        assertThat(client.reads().history(queue, job.id())).extracting(JobEvent::event).contains("promoted");
    }

    @Test
    void rescheduleMovesTheDueTimeOnTheServerClock() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("x").delayedBy(Duration.ofHours(1)));

        long runAt = serverNowMs() + 120_000;
        assertThat(client.admin().reschedule(queue, job.id(), Instant.ofEpochMilli(runAt)))
                .isEqualTo(new ManualTransition.Rescheduled(queue, job.id(), Instant.ofEpochMilli(runAt)));
        assertThat(delayedScore(job.id())).isEqualTo((double) runAt);

        long before = serverNowMs();
        ManualTransition later = client.admin().reschedule(queue, job.id(), Duration.ofMinutes(10));
        long after = serverNowMs();
        assertThat(later).isInstanceOfSatisfying(ManualTransition.Rescheduled.class, r -> assertThat(r.dueAt().toEpochMilli())
                .as("a delay counts from the server's now").isBetween(before + 600_000, after + 600_000));
        assertThat(delayedScore(job.id())).isEqualTo((double) ((ManualTransition.Rescheduled) later).dueAt().toEpochMilli());
        assertThat(client.reads().job(queue, job.id()).orElseThrow().dueAt()).contains(((ManualTransition.Rescheduled) later).dueAt());
        assertThat(client.reads().history(queue, job.id())).extracting(JobEvent::event).contains("rescheduled");
    }

    @Test
    void rescheduleToThePastOrToNoDelayPromotes() {
        Enqueued first = client.submissions().enqueue(queue, NewJob.of("x").delayedBy(Duration.ofHours(1)));
        Enqueued second = client.submissions().enqueue(queue, NewJob.of("y").delayedBy(Duration.ofHours(1)));

        assertThat(client.admin().reschedule(queue, first.id(), Instant.ofEpochMilli(serverNowMs() - 1)))
                .isEqualTo(new ManualTransition.Moved(queue, first.id(), JobState.DELAYED, JobState.PENDING));
        assertThat(client.admin().reschedule(queue, second.id(), Duration.ZERO)).isInstanceOf(ManualTransition.Moved.class);
        assertThat(client.reads().stats(queue).pending()).isEqualTo(2);
        assertThat(redis.zcard(keys.delayed())).isZero();
    }

    @Test
    void onlyDelayedJobsArePromotedOrRescheduled() {
        client.submissions().enqueue(queue, NewJob.of("pending"));
        ClaimedJob active = client.leases().claim(queue, LEASE, 1, "w").get(0);
        Enqueued pending = client.submissions().enqueue(queue, NewJob.of("pending"));

        for (String id : List.of(active.id(), pending.id())) {
            JobState state = client.reads().job(queue, id).orElseThrow().state();
            assertThat(client.admin().promote(queue, id)).isInstanceOfSatisfying(ManualTransition.Refused.class,
                    r -> assertThat(r.current()).contains(state));
            assertThat(client.admin().reschedule(queue, id, Duration.ofMinutes(1))).isInstanceOfSatisfying(ManualTransition.Refused.class,
                    r -> assertThat(r.current()).contains(state));
        }
        assertThat(client.admin().promote(queue, "424242")).isInstanceOfSatisfying(ManualTransition.Refused.class,
                r -> assertThat(r.current()).isEmpty());
        assertThat(client.reads().stats(queue).active()).isEqualTo(1);
        assertThat(client.reads().stats(queue).pending()).isEqualTo(1);
        assertField("delay", () -> client.admin().reschedule(queue, pending.id(), Duration.ofMillis(-1)));
        assertField("runAt", () -> client.admin().reschedule(queue, pending.id(), Instant.ofEpochMilli(-1)));
    }

    private static void assertField(String field, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(InvalidRequestException.class,
                e -> assertThat(e.field()).isEqualTo(field));
    }
}
