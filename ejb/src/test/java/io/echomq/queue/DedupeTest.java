package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.Enqueued.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Debounce and throttle by dedupe key, against a real server: windows are judged on the server's
 * clock (the tests wait on it, polling, never on a fixed sleep), a job stays in exactly the
 * structure of its state, and idempotency keys keep their meaning.
 */
class DedupeTest extends RealQueueTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration LONG = Duration.ofMinutes(10);

    private JobView job(String id) {
        return client.reads().job(queue, id).orElseThrow();
    }

    private Enqueued throttled(String payload, String key, Duration window) {
        return client.submissions().enqueue(queue, NewJob.of(payload).withDedupe(Dedupe.throttle(key, window)));
    }

    private Enqueued debounced(String payload, String key, Duration window) {
        return client.submissions().enqueue(queue, NewJob.of(payload).withDedupe(Dedupe.debounce(key, window)));
    }

    @Test
    void throttleKeepsTheFirstWithinTheWindowAndMakesANewJobAfterIt() {
        Duration window = Duration.ofMillis(300);
        Enqueued first = throttled("first", "t", window);
        assertThat(first.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(first.state()).isEqualTo(JobState.PENDING);
        long opened = job(first.id()).createdAt().toEpochMilli();

        Enqueued second = throttled("second", "t", window);
        assertThat(second.outcome()).isEqualTo(Outcome.THROTTLED);
        assertThat(second.replayed()).isFalse();
        assertThat(second.created()).isFalse();
        assertThat(second.id()).isEqualTo(first.id());
        assertThat(second.state()).isEqualTo(JobState.PENDING);
        assertThat(job(first.id()).payload()).as("the first wins").isEqualTo("first");
        assertThat(job(first.id()).dedupeKey()).contains("t");
        assertThat(client.reads().stats(queue).total()).isEqualTo(1);

        awaitServerTime(opened + window.toMillis());
        Enqueued after = throttled("third", "t", window);
        assertThat(after.outcome()).as("the window is over on the server clock").isEqualTo(Outcome.CREATED);
        assertThat(after.id()).isNotEqualTo(first.id());
        assertThat(throttled("fourth", "t", window).id()).as("a new window, on the new job").isEqualTo(after.id());
        assertThat(client.reads().stats(queue).total()).isEqualTo(2);
    }

    @Test
    void aThrottleWindowOutlivesItsJob() {
        Enqueued first = throttled("first", "t", LONG);
        ClaimedJob claimed = client.leases().claim(queue, LEASE, 1, "w").get(0);
        assertThat(client.leases().complete(claimed.lease())).isInstanceOf(Settlement.Completed.class);
        assertThat(client.admin().remove(queue, first.id())).isInstanceOf(ManualTransition.Removed.class);

        Enqueued again = throttled("second", "t", LONG);
        assertThat(again.outcome()).as("the window still holds").isEqualTo(Outcome.THROTTLED);
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(again.state()).as("its job is gone").isNull();
        assertThat(client.reads().stats(queue).total()).isZero();
    }

    @Test
    void theWindowKeyExpiresWithTheWindow() {
        throttled("x", "t", Duration.ofMillis(500));
        long ttl = redis.pttl(keys.prefix() + "dedupe:t");
        assertThat(ttl).as("memory is bounded by the window, with nothing to sweep").isBetween(1L, 500L);
    }

    @Test
    void debounceReplacesTheWaitingJobAndPushesItsDueTime() {
        long before = serverNowMs();
        Enqueued first = debounced("v1", "d", LONG);
        assertThat(first.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(first.state()).as("a debounced job waits out its window").isEqualTo(JobState.DELAYED);
        long firstDue = job(first.id()).dueAt().orElseThrow().toEpochMilli();
        assertThat(firstDue).isBetween(before + LONG.toMillis(), serverNowMs() + LONG.toMillis());

        awaitServerTime(firstDue - LONG.toMillis() + 2);
        Enqueued second = client.submissions().enqueue(queue, NewJob.of("v2").inLane("eu").withMaxAttempts(7)
                .withDedupe(Dedupe.debounce("d", LONG)));
        assertThat(second.outcome()).isEqualTo(Outcome.REPLACED);
        assertThat(second.id()).isEqualTo(first.id());
        assertThat(second.state()).isEqualTo(JobState.DELAYED);

        JobView job = job(first.id());
        assertThat(job.payload()).as("the last wins").isEqualTo("v2");
        assertThat(job.lane()).isEqualTo("eu");
        assertThat(job.maxAttempts()).isEqualTo(7);
        assertThat(job.attempts()).isZero();
        long due = job.dueAt().orElseThrow().toEpochMilli();
        assertThat(due).as("due a window after the last submission").isGreaterThan(firstDue);
        assertThat(redis.zscore(keys.delayed(), first.id())).isEqualTo((double) due);
        assertThat(redis.zcard(keys.delayed())).as("one job, in the delayed set only").isEqualTo(1);
        assertThat(redis.exists(keys.pending("eu"), keys.pending(NewJob.DEFAULT_LANE))).isZero();
        assertThat(client.reads().history(queue, first.id())).extracting(JobEvent::event).containsExactly("enqueued", "replaced");
    }

    @Test
    void aDebouncedJobRunsWithTheLastPayloadOnceTheKeyIsQuiet() {
        Duration window = Duration.ofMillis(150);
        Enqueued first = debounced("v1", "d", window);
        debounced("v2", "d", window);
        Enqueued last = debounced("v3", "d", window);
        assertThat(last.id()).isEqualTo(first.id());
        long due = job(first.id()).dueAt().orElseThrow().toEpochMilli();

        assertThat(client.leases().claim(queue, LEASE, 10, "w")).as("not before the window is quiet").isEmpty();
        awaitServerTime(due);
        List<ClaimedJob> claimed = client.leases().claim(queue, LEASE, 10, "w");
        assertThat(claimed).hasSize(1);
        assertThat(claimed.get(0).id()).isEqualTo(first.id());
        assertThat(claimed.get(0).payload()).isEqualTo("v3");
    }

    @Test
    void aSubmissionAfterTheJobWasClaimedMakesANewJob() {
        Enqueued first = debounced("v1", "d", LONG);
        assertThat(client.admin().promote(queue, first.id())).isInstanceOf(ManualTransition.Moved.class);

        Enqueued whilePending = debounced("v2", "d", LONG);
        assertThat(whilePending.outcome()).as("a promoted job is out of its window: it runs as it is").isEqualTo(Outcome.CREATED);
        assertThat(whilePending.id()).isNotEqualTo(first.id());
        assertThat(job(first.id()).payload()).isEqualTo("v1");

        ClaimedJob claimed = client.leases().claim(queue, LEASE, 1, "w").get(0);
        assertThat(claimed.id()).isEqualTo(first.id());
        assertThat(client.admin().promote(queue, whilePending.id())).isInstanceOf(ManualTransition.Moved.class);
        ClaimedJob second = client.leases().claim(queue, LEASE, 1, "w").get(0);
        assertThat(second.id()).isEqualTo(whilePending.id());

        Enqueued afterClaim = debounced("v3", "d", LONG);
        assertThat(afterClaim.outcome()).as("the window's job was claimed").isEqualTo(Outcome.CREATED);
        assertThat(afterClaim.state()).isEqualTo(JobState.DELAYED);
        assertThat(job(second.id()).payload()).isEqualTo("v2");
        assertThat(debounced("v4", "d", LONG).id()).as("the new job is the window's now").isEqualTo(afterClaim.id());
        assertThat(job(afterClaim.id()).payload()).isEqualTo("v4");
    }

    @Test
    void aRetriedJobIsNotReplaced() {
        Enqueued first = debounced("v1", "d", LONG);
        client.admin().promote(queue, first.id());
        ClaimedJob claimed = client.leases().claim(queue, LEASE, 1, "w").get(0);
        assertThat(client.leases().retry(claimed.lease(), "boom", new Backoff(LONG, LONG), FailureKind.RETRYABLE))
                .isInstanceOf(RetryOutcome.Scheduled.class);
        assertThat(job(first.id()).state()).isEqualTo(JobState.DELAYED);

        Enqueued next = debounced("v2", "d", LONG);
        assertThat(next.outcome()).as("delayed again, but claimed once").isEqualTo(Outcome.CREATED);
        assertThat(job(first.id()).payload()).isEqualTo("v1");
    }

    @Test
    void aBatchIsJudgedAsSubmissionsOneAfterAnother() {
        List<Enqueued> answers = client.submissions().enqueueBatch(queue, List.of(
                NewJob.of("t1").withDedupe(Dedupe.throttle("t", LONG)),
                NewJob.of("t2").withDedupe(Dedupe.throttle("t", LONG)),
                NewJob.of("d1").withDedupe(Dedupe.debounce("d", LONG)),
                NewJob.of("d2").inLane("eu").withDedupe(Dedupe.debounce("d", LONG)),
                NewJob.of("plain"),
                NewJob.of("t3").withDedupe(Dedupe.throttle("t", LONG))));
        assertThat(answers).extracting(Enqueued::outcome).containsExactly(Outcome.CREATED, Outcome.THROTTLED,
                Outcome.CREATED, Outcome.REPLACED, Outcome.CREATED, Outcome.THROTTLED);
        assertThat(answers.get(1).id()).isEqualTo(answers.get(0).id());
        assertThat(answers.get(5).id()).isEqualTo(answers.get(0).id());
        assertThat(answers.get(3).id()).isEqualTo(answers.get(2).id());
        assertThat(job(answers.get(2).id()).payload()).isEqualTo("d2");
        assertThat(job(answers.get(2).id()).lane()).isEqualTo("eu");
        assertThat(client.reads().stats(queue).total()).isEqualTo(3);
    }

    @Test
    void anIdempotencyKeyIsJudgedFirstAndKeepsItsMeaning() {
        Enqueued first = client.submissions().enqueue(queue, NewJob.of("a").withIdempotencyKey("i-1").withDedupe(Dedupe.throttle("t", LONG)));
        assertThat(first.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(job(first.id()).idempotencyKey()).contains("i-1");

        Enqueued again = client.submissions().enqueue(queue, NewJob.of("b").withIdempotencyKey("i-1").withDedupe(Dedupe.throttle("t", LONG)));
        assertThat(again.outcome()).isEqualTo(Outcome.DUPLICATE);
        assertThat(again.replayed()).isTrue();
        assertThat(again.id()).isEqualTo(first.id());

        Enqueued other = client.submissions().enqueue(queue, NewJob.of("c").withIdempotencyKey("i-2").withDedupe(Dedupe.throttle("t", LONG)));
        assertThat(other.outcome()).isEqualTo(Outcome.THROTTLED);
        Enqueued keyFree = client.submissions().enqueue(queue, NewJob.of("c").withIdempotencyKey("i-2"));
        assertThat(keyFree.outcome()).as("a throttled submission records no idempotency key").isEqualTo(Outcome.CREATED);

        Enqueued debounced = client.submissions().enqueue(queue, NewJob.of("v1").withIdempotencyKey("i-3").withDedupe(Dedupe.debounce("d", LONG)));
        Enqueued resent = client.submissions().enqueue(queue, NewJob.of("v2").withIdempotencyKey("i-3").withDedupe(Dedupe.debounce("d", LONG)));
        assertThat(resent.outcome()).isEqualTo(Outcome.DUPLICATE);
        assertThat(job(debounced.id()).payload()).as("a known idempotency key replaces nothing").isEqualTo("v1");
        Enqueued replacing = client.submissions().enqueue(queue, NewJob.of("v3").withIdempotencyKey("i-4").withDedupe(Dedupe.debounce("d", LONG)));
        assertThat(replacing.outcome()).isEqualTo(Outcome.REPLACED);
        assertThat(job(debounced.id()).idempotencyKey()).as("the job keeps its own key").contains("i-3");
        assertThat(job(debounced.id()).payload()).isEqualTo("v3");

        assertThat(client.submissions().enqueue(queue, NewJob.of("x").withIdempotencyKey("plain")).outcome()).isEqualTo(Outcome.CREATED);
        assertThat(client.submissions().enqueue(queue, NewJob.of("x").withIdempotencyKey("plain")).outcome()).isEqualTo(Outcome.DUPLICATE);
    }

    /**
     * A client whose debounced submission replaced the waiting job, and who retries it with the
     * same idempotency key after the job ran (its answer was lost), must not make a second job.
     */
    @Test
    void theIdempotencyKeyOfAReplacingSubmissionNamesTheJobUntilTheJobIsDeleted() {
        Enqueued made = client.submissions().enqueue(queue, NewJob.of("v1").withIdempotencyKey("first").withDedupe(Dedupe.debounce("d", LONG)));
        Enqueued replacing = client.submissions().enqueue(queue, NewJob.of("v2").withIdempotencyKey("retried").withDedupe(Dedupe.debounce("d", LONG)));
        assertThat(replacing.outcome()).isEqualTo(Outcome.REPLACED);
        client.admin().reschedule(queue, made.id(), Duration.ZERO);
        ClaimedJob ran = client.leases().claim(queue, LEASE, 1, "w").get(0);
        assertThat(client.leases().complete(ran.lease())).isInstanceOf(Settlement.Completed.class);

        Enqueued retried = client.submissions().enqueue(queue, NewJob.of("v2").withIdempotencyKey("retried").withDedupe(Dedupe.debounce("d", LONG)));

        assertThat(retried.outcome()).isEqualTo(Outcome.DUPLICATE);
        assertThat(retried.id()).isEqualTo(made.id());
        assertThat(client.reads().stats(queue).total()).as("no second job").isEqualTo(1);
        assertThat(job(made.id()).idempotencyKey()).as("the job keeps its own key").contains("first");

        assertThat(client.admin().remove(queue, made.id())).isInstanceOf(ManualTransition.Removed.class);
        assertThat(redis.hgetAll(keys.idempotency())).as("both keys released with the job").isEmpty();
    }

    @Test
    void aKeyMeantForOneModeIsJudgedByEachSubmissionsOwn() {
        Enqueued debounced = debounced("v1", "k", LONG);
        Enqueued throttled = throttled("t", "k", LONG);
        assertThat(throttled.outcome()).isEqualTo(Outcome.THROTTLED);
        assertThat(throttled.id()).isEqualTo(debounced.id());
        assertThat(throttled.state()).isEqualTo(JobState.DELAYED);
    }

    @Test
    void keysWithBracesAndColonsStayInTheQueuesKeys() {
        Enqueued job = throttled("x", "user:{42}:reindex", LONG);
        assertThat(redis.get(keys.prefix() + "dedupe:user:{42}:reindex")).startsWith(job.id() + ":");
        assertThat(throttled("y", "user:{42}:reindex", LONG).outcome()).isEqualTo(Outcome.THROTTLED);
    }

    @Test
    void badDedupeFieldsAreRefusedNamingTheField() {
        assertField(NewJob.of("x").withDedupe(Dedupe.throttle("", LONG)), "dedupe.key");
        assertField(NewJob.of("x").withDedupe(Dedupe.throttle("a\u0001b", LONG)), "dedupe.key");
        assertField(NewJob.of("x").withDedupe(Dedupe.throttle("k".repeat(256), LONG)), "dedupe.key");
        assertField(NewJob.of("x").withDedupe(Dedupe.throttle(null, LONG)), "dedupe.key");
        assertField(NewJob.of("x").withDedupe(Dedupe.throttle("k", Duration.ZERO)), "dedupe.windowMs");
        assertField(NewJob.of("x").withDedupe(Dedupe.throttle("k", Duration.ofDays(31))), "dedupe.windowMs");
        assertField(NewJob.of("x").withDedupe(Dedupe.throttle("k", null)), "dedupe.windowMs");
        assertField(NewJob.of("x").withDedupe(new Dedupe("k", LONG, null)), "dedupe.mode");
        assertField(NewJob.of("x").delayedBy(Duration.ofSeconds(1)).withDedupe(Dedupe.debounce("k", LONG)), "dedupe.mode");
        assertField(NewJob.of("x").scheduledAt(Instant.now()).withDedupe(Dedupe.debounce("k", LONG)), "dedupe.mode");
        assertThatThrownBy(() -> client.submissions().enqueueBatch(queue, List.of(NewJob.of("a"),
                NewJob.of("x").withDedupe(Dedupe.throttle("", LONG)))))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("jobs[1].dedupe.key"));
        assertThat(client.reads().stats(queue).total()).as("nothing reached the queue").isZero();

        Enqueued delayedThrottle = client.submissions().enqueue(queue, NewJob.of("x").delayedBy(LONG).withDedupe(Dedupe.throttle("k", LONG)));
        assertThat(delayedThrottle.state()).as("a throttled job takes a delay as any job does").isEqualTo(JobState.DELAYED);
    }

    private void assertField(NewJob job, String field) {
        assertThatThrownBy(() -> client.submissions().enqueue(queue, job))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo(field));
    }
}
