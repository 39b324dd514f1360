package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Every transition of the job state machine and every rejection, against a real server. */
class StateMachineTest extends RealQueueTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration SHORT_LEASE = Duration.ofMillis(40);

    private static Instant serverNow() {
        return Instant.ofEpochMilli(serverNowMs());
    }

    private ClaimedJob claimOne(Duration lease) {
        List<ClaimedJob> jobs = client.leases().claim(queue, lease, 1, "worker-a");
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    private long createdMs(String id) {
        return client.reads().job(queue, id).orElseThrow().createdAt().toEpochMilli();
    }

    private Instant finishedAt(String id) {
        return client.reads().job(queue, id).orElseThrow().finishedAt().orElseThrow();
    }

    private JobState stateOf(String id) {
        return client.reads().job(queue, id).orElseThrow().state();
    }

    @Nested
    class Enqueue {
        @Test
        void newJobIsPendingInItsLane() {
            Enqueued job = client.submissions().enqueue(queue, NewJob.of("{\"n\":1}").inLane("eu"));

            assertThat(job.state()).isEqualTo(JobState.PENDING);
            assertThat(job.replayed()).isFalse();
            assertThat(redis.zscore(keys.pending("eu"), job.id())).isNotNull();
            assertThat(redis.lrange(keys.ring(), 0, -1)).containsExactly("eu");
            JobView view = client.reads().job(queue, job.id()).orElseThrow();
            assertThat(view.payload()).isEqualTo("{\"n\":1}");
            assertThat(view.attempts()).isZero();
            assertThat(view.maxAttempts()).isEqualTo(QueueSettings.DEFAULT.defaultMaxAttempts());
        }

        @Test
        void idsAreMintedInOrder() {
            long first = Long.parseLong(client.submissions().enqueue(queue, NewJob.of("a")).id());
            long second = Long.parseLong(client.submissions().enqueue(queue, NewJob.of("b")).id());
            assertThat(second).isGreaterThan(first);
        }

        @Test
        void delayedJobIsNotClaimableUntilDueOnTheServerClock() {
            Instant before = serverNow();
            Enqueued job = client.submissions().enqueue(queue, NewJob.of("later").delayedBy(Duration.ofMillis(300)));

            assertThat(job.state()).isEqualTo(JobState.DELAYED);
            Instant due = client.reads().job(queue, job.id()).orElseThrow().dueAt().orElseThrow();
            assertThat(Duration.between(before, due)).isBetween(Duration.ofMillis(290), Duration.ofMillis(400));
            assertThat(client.leases().claim(queue, LEASE, 1, "w")).isEmpty();

            awaitServerTimePast(due);
            assertThat(client.leases().claim(queue, LEASE, 1, "w")).extracting(ClaimedJob::id).containsExactly(job.id());
        }

        @Test
        void sameIdempotencyKeyAnswersTheFirstJobAndChangesNothing() {
            Enqueued first = client.submissions().enqueue(queue, NewJob.of("charge 5").withIdempotencyKey("order-7"));
            Enqueued again = client.submissions().enqueue(queue, NewJob.of("charge 500").withIdempotencyKey("order-7"));

            assertThat(again.replayed()).isTrue();
            assertThat(again.id()).isEqualTo(first.id());
            assertThat(client.reads().stats(queue).total()).isEqualTo(1);
            assertThat(client.reads().job(queue, first.id()).orElseThrow().payload()).isEqualTo("charge 5");
        }

        @Test
        void batchIsStoredWholeWithDuplicatesAnsweringTheFirstJob() {
            List<Enqueued> batch = client.submissions().enqueueBatch(queue, List.of(
                    NewJob.of("a").withIdempotencyKey("k"), NewJob.of("b").inLane("x"), NewJob.of("c").withIdempotencyKey("k")));

            assertThat(batch).extracting(Enqueued::replayed).containsExactly(false, false, true);
            assertThat(batch.get(2).id()).isEqualTo(batch.get(0).id());
            assertThat(client.reads().stats(queue).pending()).isEqualTo(2);
        }

        @Test
        void batchWithOneBadJobStoresNothingAndNamesTheJob() {
            assertThatThrownBy(() -> client.submissions().enqueueBatch(queue, List.of(NewJob.of("ok"), NewJob.of("bad").inLane("no:colons"))))
                    .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("jobs[1].lane"));
            assertThatThrownBy(() -> client.submissions().enqueueBatch(queue, List.of()))
                    .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("jobs"));
            assertThat(client.reads().stats(queue).total()).isZero();
        }

        @Test
        void aLeaseOfAJobAFailoverLostCannotSettleTheJobThatGotItsIdAndToken() {
            redis.set(keys.seq(), "6");
            Enqueued lost = client.submissions().enqueue(queue, NewJob.of("A"));
            ClaimedJob holderOfA = claimOne(LEASE);
            // The failover: the promoted replica never saw job A (nor the claim); its counter stood at 6.
            redis.del(keys.job(lost.id()), keys.history(lost.id()));
            redis.zrem(keys.active(), lost.id());
            redis.set(keys.seq(), "6");
            awaitServerTimePast(Instant.ofEpochMilli(holderOfA.lease().jobCreatedMs()));   // B is created later on the server clock
            Enqueued reused = client.submissions().enqueue(queue, NewJob.of("B"));
            ClaimedJob holderOfB = claimOne(LEASE);
            assertThat(reused.id()).isEqualTo(lost.id()).isEqualTo("7");
            assertThat(holderOfB.attempt()).isEqualTo(holderOfA.attempt()).isEqualTo(1);
            assertThat(holderOfB.lease().jobCreatedMs()).isGreaterThan(holderOfA.lease().jobCreatedMs());
            double deadline = redis.zscore(keys.active(), reused.id());

            Lease stale = holderOfA.lease();
            assertThat(client.leases().extend(stale, Duration.ofHours(1))).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.NOT_FOUND));
            assertThat(client.leases().retry(stale, "A failed", Backoff.NONE, FailureKind.PERMANENT)).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.NOT_FOUND));
            assertThat(client.leases().complete(stale)).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.NOT_FOUND));
            assertThat(client.leases().completeAndClaim(queue, List.of(stale), LEASE, 0, "worker-a").settlements())
                    .singleElement().isInstanceOfSatisfying(Rejected.class, r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.NOT_FOUND));

            assertThat(stateOf(reused.id())).as("B untouched by A's holder").isEqualTo(JobState.ACTIVE);
            assertThat(redis.zscore(keys.active(), reused.id())).as("B's lease not extended").isEqualTo(deadline);
            assertThat(redis.hget(keys.job(reused.id()), "last_error")).isNull();
            assertThat(client.reads().history(queue, reused.id())).extracting(JobEvent::event)
                    .containsExactly("enqueued", "claimed", "rejected", "rejected", "rejected", "rejected");
            assertThat(client.leases().complete(holderOfB.lease())).isInstanceOf(Settlement.Completed.class);
        }

        @Test
        void replayReportsTheFirstJobsCurrentState() {
            Enqueued first = client.submissions().enqueue(queue, NewJob.of("x").withIdempotencyKey("k"));
            client.leases().complete(claimOne(LEASE).lease());

            Enqueued again = client.submissions().enqueue(queue, NewJob.of("x").withIdempotencyKey("k"));
            assertThat(again.id()).isEqualTo(first.id());
            assertThat(again.state()).isEqualTo(JobState.COMPLETED);
        }
    }

    @Nested
    class Claim {
        @Test
        void leasesTheOldestJobAndMintsTheFirstToken() {
            Enqueued first = client.submissions().enqueue(queue, NewJob.of("1"));
            client.submissions().enqueue(queue, NewJob.of("2"));
            Instant before = serverNow();

            ClaimedJob claimed = claimOne(LEASE);

            assertThat(claimed.id()).isEqualTo(first.id());
            assertThat(claimed.attempt()).isEqualTo(1);
            assertThat(claimed.payload()).isEqualTo("1");
            assertThat(claimed.lane()).isEqualTo(NewJob.DEFAULT_LANE);
            assertThat(Duration.between(before, claimed.leaseUntil())).isBetween(LEASE.minusMillis(50), LEASE.plusMillis(200));
            assertThat(redis.zscore(keys.active(), first.id())).isEqualTo((double) claimed.leaseUntil().toEpochMilli());
            JobView view = client.reads().job(queue, first.id()).orElseThrow();
            assertThat(view.state()).isEqualTo(JobState.ACTIVE);
            assertThat(view.worker()).contains("worker-a");
        }

        @Test
        void emptyQueueGivesNothing() {
            assertThat(client.leases().claim(queue, LEASE, 5, "w")).isEmpty();
        }

        @Test
        void batchClaimTakesUpToTheLimitInMintOrder() {
            for (int i = 0; i < 5; i++) {
                client.submissions().enqueue(queue, NewJob.of("job" + i));
            }
            List<ClaimedJob> batch = client.leases().claim(queue, LEASE, 3, "w");
            assertThat(batch).extracting(ClaimedJob::payload).containsExactly("job0", "job1", "job2");
            assertThat(client.leases().claim(queue, LEASE, 10, "w")).hasSize(2);
            assertThat(client.reads().stats(queue).active()).isEqualTo(5);
        }

        @Test
        void pausedQueueHandsOutNothingUntilResumed() {
            client.submissions().enqueue(queue, NewJob.of("x"));
            assertThat(client.admin().pause(queue)).isTrue();
            assertThat(client.reads().stats(queue).paused()).isTrue();
            assertThat(client.leases().claim(queue, LEASE, 1, "w")).isEmpty();

            assertThat(client.admin().resume(queue)).isFalse();
            assertThat(client.leases().claim(queue, LEASE, 1, "w")).hasSize(1);
        }

        @Test
        void aSmallLaneIsNotStarvedByABusyOne() {
            for (int i = 0; i < 1_000; i++) {
                client.submissions().enqueue(queue, NewJob.of("big" + i).inLane("big"));
            }
            for (int i = 0; i < 10; i++) {
                client.submissions().enqueue(queue, NewJob.of("small" + i).inLane("small"));
            }

            int smallClaimed = 0;
            for (int claim = 0; claim < 20; claim++) {
                if (claimOne(LEASE).lane().equals("small")) {
                    smallClaimed++;
                }
            }
            assertThat(smallClaimed).as("small-lane jobs among the first 20 claims").isEqualTo(10);
        }

        /**
         * A claim of n plans its round-robin at once (one pop per lane, one ring rewrite); it must
         * hand out the same jobs in the same order, and leave the ring as n single claims would,
         * also when the ring holds more lanes than one claim can visit.
         */
        @Test
        void aBatchClaimServesTheLanesExactlyAsSingleClaimsWould() {
            String batched = queue + "-batched";
            String single = queue + "-single";
            Random random = new Random(42);
            List<String> lanes = List.of("a", "b", "c", "d", "e", "f", "g");
            int claimedSoFar = 0;
            for (int step = 0; step < 200; step++) {
                for (int i = random.nextInt(6); i > 0; i--) {
                    NewJob job = NewJob.of("p" + step + "-" + i).inLane(lanes.get(random.nextInt(random.nextBoolean() ? 2 : lanes.size())));
                    client.submissions().enqueue(batched, job);
                    client.submissions().enqueue(single, job);
                }
                int n = 1 + random.nextInt(random.nextBoolean() ? 3 : 12);
                List<String> fromBatch = client.leases().claim(batched, LEASE, n, "w").stream().map(j -> j.lane() + ":" + j.payload()).toList();
                List<String> fromSingles = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    client.leases().claim(single, LEASE, 1, "w").forEach(j -> fromSingles.add(j.lane() + ":" + j.payload()));
                }
                assertThat(fromBatch).as("claim of %d at step %d", n, step).isEqualTo(fromSingles);
                assertThat(redis.lrange(new QueueKeys(batched).ring(), 0, -1)).as("lane ring after step %d", step)
                        .isEqualTo(redis.lrange(new QueueKeys(single).ring(), 0, -1));
                claimedSoFar += fromBatch.size();
            }
            assertThat(claimedSoFar).as("jobs claimed over the run").isGreaterThan(300);
        }
    }

    @Nested
    class Settle {
        @Test
        void currentTokenCompletesTheJob() {
            ClaimedJob job = claimAfterEnqueue();
            Settlement outcome = client.leases().complete(job.lease());

            assertThat(outcome).isInstanceOf(Settlement.Completed.class);
            assertThat(stateOf(job.id())).isEqualTo(JobState.COMPLETED);
            assertThat(redis.zscore(keys.active(), job.id())).isNull();
            assertThat(redis.zscore(keys.completed(), job.id())).isNotNull();
        }

        @Test
        void staleTokenCannotComplete() {
            Takeover takeover = leaseExpiresAndIsTakenOver();
            ClaimedJob zombie = takeover.zombie();
            ClaimedJob successor = takeover.successor();

            Settlement late = client.leases().complete(zombie.lease());

            assertThat(late).isInstanceOfSatisfying(Rejected.class, r -> {
                assertThat(r.reason()).isEqualTo(Rejected.Reason.STALE_TOKEN);
                assertThat(r.attempts()).isEqualTo(2);
                assertThat(r.state()).contains(JobState.ACTIVE);
            });
            assertThat(stateOf(zombie.id())).isEqualTo(JobState.ACTIVE);
            assertThat(client.leases().complete(successor.lease())).isInstanceOf(Settlement.Completed.class);
        }

        @Test
        void completeClaimSettlesEachFencedAcknowledgementThenLeasesTheNextJobs() {
            Takeover takeover = leaseExpiresAndIsTakenOver();
            ClaimedJob fresh = claimAfterEnqueue();
            client.submissions().enqueue(queue, NewJob.of("{\"n\":3}"));
            client.submissions().enqueue(queue, NewJob.of("{\"n\":4}"));

            CompletedAndClaimed result = client.leases().completeAndClaim(queue,
                    List.of(takeover.zombie().lease(), fresh.lease()), LEASE, 5, "worker-b");

            assertThat(result.settlements()).hasSize(2);
            assertThat(result.settlements().get(0)).as("the stale acknowledgement")
                    .isInstanceOfSatisfying(Rejected.class, r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.STALE_TOKEN));
            assertThat(result.settlements().get(1)).isInstanceOf(Settlement.Completed.class);
            assertThat(stateOf(takeover.zombie().id())).as("untouched by the refusal").isEqualTo(JobState.ACTIVE);
            assertThat(stateOf(fresh.id())).isEqualTo(JobState.COMPLETED);
            assertThat(result.claimed()).hasSize(2).allSatisfy(j -> {
                assertThat(j.attempt()).isEqualTo(1);
                assertThat(stateOf(j.id())).isEqualTo(JobState.ACTIVE);
            });
        }

        @Test
        void completeClaimOfZeroJobsOnlySettles() {
            ClaimedJob job = claimAfterEnqueue();
            client.submissions().enqueue(queue, NewJob.of("{\"n\":2}"));

            CompletedAndClaimed result = client.leases().completeAndClaim(queue, List.of(job.lease()), LEASE, 0, "worker-a");

            assertThat(result.settlements()).singleElement().isInstanceOf(Settlement.Completed.class);
            assertThat(result.claimed()).isEmpty();
            assertThat(client.reads().stats(queue).pending()).isEqualTo(1);
        }

        @Test
        void secondCompletionIsRejectedAsNotActive() {
            ClaimedJob job = claimAfterEnqueue();
            client.leases().complete(job.lease());
            assertThat(client.leases().complete(job.lease())).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.NOT_ACTIVE));
        }

        @Test
        void unknownJobIsRejectedAsNotFound() {
            Lease nobody = new Lease(queue, "999", 1, 1);
            assertThat(client.leases().complete(nobody)).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.NOT_FOUND));
            assertThat(client.leases().extend(nobody, LEASE)).isInstanceOf(Rejected.class);
            assertThat(client.leases().retry(nobody, "x", Backoff.NONE, FailureKind.RETRYABLE)).isInstanceOf(Rejected.class);
            assertThat(client.reads().stats(queue).total()).isZero();
        }

        @Test
        void extendMovesTheDeadlineOnTheServerClock() {
            ClaimedJob job = claimAfterEnqueue(Duration.ofSeconds(1));
            Instant before = serverNow();
            LeaseExtension extended = client.leases().extend(job.lease(), Duration.ofMinutes(5));

            assertThat(extended).isInstanceOfSatisfying(LeaseExtension.Extended.class, e -> {
                assertThat(Duration.between(before, e.leaseUntil())).isBetween(Duration.ofMinutes(5).minusMillis(50),
                        Duration.ofMinutes(5).plusMillis(200));
                assertThat(redis.zscore(keys.active(), job.id())).isEqualTo((double) e.leaseUntil().toEpochMilli());
            });
        }

        @Test
        void staleTokenCannotExtend() {
            Takeover takeover = leaseExpiresAndIsTakenOver();
            ClaimedJob zombie = takeover.zombie();
            ClaimedJob successor = takeover.successor();
            double deadline = redis.zscore(keys.active(), successor.id());

            assertThat(client.leases().extend(zombie.lease(), Duration.ofHours(1))).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.STALE_TOKEN));
            assertThat(redis.zscore(keys.active(), successor.id())).isEqualTo(deadline);
        }

        @Test
        void retryWaitsTheBackoffComputedOnTheServerClock() {
            client.submissions().enqueue(queue, NewJob.of("flaky").withMaxAttempts(5));
            Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(10));
            ClaimedJob first = claimOne(LEASE);
            Instant before = serverNow();

            RetryOutcome outcome = client.leases().retry(first.lease(), "connection reset", backoff, FailureKind.RETRYABLE);

            assertThat(outcome).isInstanceOfSatisfying(RetryOutcome.Scheduled.class, s -> {
                assertThat(s.state()).isEqualTo(JobState.DELAYED);
                assertThat(Duration.between(before, s.dueAt())).isBetween(Duration.ofMillis(190), Duration.ofMillis(300));
            });
            Instant due = ((RetryOutcome.Scheduled) outcome).dueAt();
            JobView view = client.reads().job(queue, first.id()).orElseThrow();
            assertThat(view.state()).isEqualTo(JobState.DELAYED);
            assertThat(view.lastError()).contains("connection reset");
            assertThat(client.leases().claim(queue, LEASE, 1, "w")).isEmpty();

            awaitServerTimePast(due);
            ClaimedJob second = claimOne(LEASE);
            assertThat(second.attempt()).isEqualTo(2);
            RetryOutcome doubled = client.leases().retry(second.lease(), "again", backoff, FailureKind.RETRYABLE);
            assertThat(doubled).isInstanceOfSatisfying(RetryOutcome.Scheduled.class,
                    s -> assertThat(Duration.between(before, s.dueAt())).isGreaterThan(Duration.ofMillis(600)));
        }

        @Test
        void retryWithoutBackoffIsPendingAtOnce() {
            ClaimedJob job = claimAfterEnqueue();
            assertThat(client.leases().retry(job.lease(), "boom", Backoff.NONE, FailureKind.RETRYABLE)).isInstanceOfSatisfying(
                    RetryOutcome.Scheduled.class, s -> assertThat(s.state()).isEqualTo(JobState.PENDING));
            assertThat(claimOne(LEASE).attempt()).isEqualTo(2);
        }

        @Test
        void lastAllowedAttemptFailingDeadLettersTheJobWithItsError() {
            client.submissions().enqueue(queue, NewJob.of("doomed").withMaxAttempts(2));
            client.leases().retry(claimOne(LEASE).lease(), "first failure", Backoff.NONE, FailureKind.RETRYABLE);
            ClaimedJob last = claimOne(LEASE);

            RetryOutcome outcome = client.leases().retry(last.lease(), "second failure", Backoff.NONE, FailureKind.RETRYABLE);

            assertThat(outcome).isInstanceOfSatisfying(RetryOutcome.DeadLettered.class, d -> assertThat(d.attempts()).isEqualTo(2));
            JobView view = client.reads().job(queue, last.id()).orElseThrow();
            assertThat(view.state()).isEqualTo(JobState.DEAD);
            assertThat(view.lastError()).contains("second failure");
            assertThat(redis.zscore(keys.dead(), last.id())).isNotNull();
        }

        @Test
        void aContendedAttemptDoesNotSpendTheJobsAttemptsButAKeyHeldForEverStillEndsInDead() {
            Enqueued held = client.submissions().enqueue(queue, NewJob.of("held").withMaxAttempts(2));

            // Two attempts' worth of contention are refunded (the job's budget) ...
            for (int refund = 1; refund <= 2; refund++) {
                ClaimedJob contended = claimOne(LEASE);
                assertThat(client.leases().retry(contended.lease(), "effect key held", Backoff.NONE, FailureKind.CONTENDED))
                        .isInstanceOf(RetryOutcome.Scheduled.class);
            }
            JobView view = client.reads().job(queue, held.id()).orElseThrow();
            assertThat(view.attempts()).isEqualTo(2);
            assertThat(view.maxAttempts()).as("the refunds raised the budget").isEqualTo(4);
            assertThat(view.lastError()).hasValueSatisfying(e -> assertThat(e).endsWith("(not counted as an attempt)"));

            // ... then contention counts like any failure, so the job cannot cycle for ever.
            client.leases().retry(claimOne(LEASE).lease(), "effect key held", Backoff.NONE, FailureKind.CONTENDED);
            ClaimedJob last = claimOne(LEASE);
            assertThat(client.leases().retry(last.lease(), "effect key held", Backoff.NONE, FailureKind.CONTENDED))
                    .isInstanceOfSatisfying(RetryOutcome.DeadLettered.class, d -> assertThat(d.attempts()).isEqualTo(4));
        }

        @Test
        void terminalFailureDeadLettersAtOnce() {
            client.submissions().enqueue(queue, NewJob.of("bad input").withMaxAttempts(10));
            ClaimedJob job = claimOne(LEASE);
            assertThat(client.leases().retry(job.lease(), "payload is not valid", Backoff.DEFAULT, FailureKind.PERMANENT))
                    .isInstanceOf(RetryOutcome.DeadLettered.class);
            assertThat(stateOf(job.id())).isEqualTo(JobState.DEAD);
        }

        @Test
        void staleTokenCannotRetry() {
            Takeover takeover = leaseExpiresAndIsTakenOver();
            ClaimedJob zombie = takeover.zombie();
            ClaimedJob successor = takeover.successor();

            assertThat(client.leases().retry(zombie.lease(), "late failure", Backoff.NONE, FailureKind.PERMANENT)).isInstanceOf(Rejected.class);
            JobView view = client.reads().job(queue, successor.id()).orElseThrow();
            assertThat(view.state()).isEqualTo(JobState.ACTIVE);
            assertThat(view.lastError()).hasValueSatisfying(e -> assertThat(e).doesNotContain("late failure"));
        }

        @Test
        void overlongErrorIsCutNotRefused() {
            ClaimedJob job = claimAfterEnqueue();
            client.leases().retry(job.lease(), "x".repeat(100_000), Backoff.NONE, FailureKind.RETRYABLE);
            assertThat(client.reads().job(queue, job.id()).orElseThrow().lastError().orElseThrow())
                    .hasSizeLessThanOrEqualTo(RequestChecks.MAX_ERROR_CHARS + 1);
        }

        /** A worker whose lease expired (the zombie) and the worker that holds the job now. */
        record Takeover(ClaimedJob zombie, ClaimedJob successor) {
        }

        private Takeover leaseExpiresAndIsTakenOver() {
            ClaimedJob zombie = claimAfterEnqueue(SHORT_LEASE);
            awaitServerTimePast(zombie.leaseUntil());
            assertThat(client.admin().reap(queue, 10).jobIds()).containsExactly(zombie.id());
            ClaimedJob successor = claimOne(LEASE);
            assertThat(successor.attempt()).isEqualTo(2);
            return new Takeover(zombie, successor);
        }

        private ClaimedJob claimAfterEnqueue() {
            return claimAfterEnqueue(LEASE);
        }

        private ClaimedJob claimAfterEnqueue(Duration lease) {
            client.submissions().enqueue(queue, NewJob.of("work"));
            return claimOne(lease);
        }
    }

    @Nested
    class Reap {
        @Test
        void expiredLeaseGoesBackToPendingAndCanBeClaimedAgain() {
            client.submissions().enqueue(queue, NewJob.of("x"));
            ClaimedJob first = claimOne(SHORT_LEASE);
            awaitServerTimePast(first.leaseUntil());

            ReapResult reaped = client.admin().reap(queue, 100);

            assertThat(reaped).isEqualTo(new ReapResult(queue, 1, 0, 0, List.of(first.id())));
            JobView view = client.reads().job(queue, first.id()).orElseThrow();
            assertThat(view.state()).isEqualTo(JobState.PENDING);
            assertThat(view.leaseUntil()).isEmpty();
            assertThat(view.lastError()).hasValueSatisfying(e -> assertThat(e).contains("lease expired"));
            assertThat(redis.zscore(keys.active(), first.id())).isNull();
            assertThat(redis.zscore(keys.pending(NewJob.DEFAULT_LANE), first.id())).isNotNull();
            assertThat(client.reads().history(queue, first.id())).extracting(JobEvent::event).containsExactly("enqueued", "claimed", "reaped");
            assertThat(claimOne(LEASE).attempt()).isEqualTo(2);
        }

        @Test
        void onlyLeasesPastTheirDeadlineOnTheServerClockAreReaped() {
            client.submissions().enqueue(queue, NewJob.of("expires"));
            client.submissions().enqueue(queue, NewJob.of("lives"));
            ClaimedJob expiring = claimOne(Duration.ofMillis(300));   // long enough to reap once before it lapses
            ClaimedJob live = claimOne(LEASE);
            assertThat(client.admin().reap(queue, 100).total()).as("before any deadline").isZero();
            awaitServerTimePast(expiring.leaseUntil());

            assertThat(client.admin().reap(queue, 100).jobIds()).containsExactly(expiring.id());

            assertThat(stateOf(live.id())).isEqualTo(JobState.ACTIVE);
            assertThat(redis.zscore(keys.active(), live.id())).isEqualTo((double) live.leaseUntil().toEpochMilli());
            assertThat(client.leases().complete(live.lease())).isInstanceOf(Settlement.Completed.class);
            QueueStats stats = client.reads().stats(queue);
            assertThat(stats.pending()).isEqualTo(1);
            assertThat(stats.active()).isZero();
        }

        @Test
        void expiredLeaseOfTheLastAttemptIsDeadLettered() {
            client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(1));
            ClaimedJob job = claimOne(SHORT_LEASE);
            awaitServerTimePast(job.leaseUntil());

            assertThat(client.admin().reap(queue, 100)).isEqualTo(new ReapResult(queue, 0, 1, 0, List.of(job.id())));
            assertThat(stateOf(job.id())).isEqualTo(JobState.DEAD);
            assertThat(redis.zscore(keys.dead(), job.id())).isNotNull();
            assertThat(client.reads().stats(queue).active()).isZero();
        }

        @Test
        void reapingIsBatched() {
            for (int i = 0; i < 5; i++) {
                client.submissions().enqueue(queue, NewJob.of("x" + i));
            }
            List<ClaimedJob> claimed = client.leases().claim(queue, SHORT_LEASE, 5, "w");
            awaitServerTimePast(claimed.get(claimed.size() - 1).leaseUntil());

            assertThat(client.admin().reap(queue, 2).total()).isEqualTo(2);
            assertThat(client.reads().stats(queue).active()).isEqualTo(3);
            assertThat(client.admin().reap(queue, 2).total()).isEqualTo(2);
            assertThat(client.admin().reap(queue, 2).total()).isEqualTo(1);
            assertThat(client.admin().reap(queue, 2).total()).isZero();
            QueueStats stats = client.reads().stats(queue);
            assertThat(stats.pending()).isEqualTo(5);
            assertThat(stats.active()).isZero();
        }
    }

    @Nested
    class OperatorActions {
        @Test
        void pendingAndDelayedJobsCanBeCancelled() {
            Enqueued pending = client.submissions().enqueue(queue, NewJob.of("p").inLane("l1"));
            Enqueued delayed = client.submissions().enqueue(queue, NewJob.of("d").delayedBy(Duration.ofMinutes(5)));

            assertThat(client.admin().cancel(queue, pending.id())).isEqualTo(
                    new ManualTransition.Moved(queue, pending.id(), JobState.PENDING, JobState.CANCELLED));
            assertThat(client.admin().cancel(queue, delayed.id())).isInstanceOf(ManualTransition.Moved.class);

            QueueStats stats = client.reads().stats(queue);
            assertThat(stats.cancelled()).isEqualTo(2);
            assertThat(stats.pending() + stats.delayed()).isZero();
            assertThat(redis.llen(keys.ring())).as("no empty lane left in the ring").isZero();
            assertThat(client.leases().claim(queue, LEASE, 5, "w")).isEmpty();
        }

        @Test
        void cancellingAnActiveJobRequestsItAndLeavesItActiveForItsWorker() {
            client.submissions().enqueue(queue, NewJob.of("x"));
            ClaimedJob job = claimOne(LEASE);
            assertThat(client.leases().extend(job.lease(), LEASE)).isInstanceOfSatisfying(LeaseExtension.Extended.class,
                    e -> assertThat(e.cancelRequested()).isFalse());

            assertThat(client.admin().cancel(queue, job.id())).isEqualTo(new ManualTransition.CancelRequested(queue, job.id()));
            assertThat(client.admin().cancel(queue, job.id())).as("asking again answers the same").isEqualTo(
                    new ManualTransition.CancelRequested(queue, job.id()));

            assertThat(stateOf(job.id())).isEqualTo(JobState.ACTIVE);
            assertThat(redis.zscore(keys.active(), job.id())).isNotNull();
            assertThat(client.reads().job(queue, job.id()).orElseThrow().cancelRequestedAt()).isPresent();
            assertThat(client.leases().extend(job.lease(), LEASE)).as("the heartbeat tells the worker")
                    .isInstanceOfSatisfying(LeaseExtension.Extended.class, e -> assertThat(e.cancelRequested()).isTrue());
            assertThat(client.reads().history(queue, job.id())).extracting(JobEvent::event).containsOnlyOnce("cancel-requested");
            // A handler that committed anyway: its effect stands, the job ends completed (invariant 6).
            assertThat(client.leases().complete(job.lease())).isInstanceOf(Settlement.Completed.class);
        }

        @Test
        void stopEndsAJobWhoseCancelWasRequestedCancelledThroughItsFencedLease() {
            client.submissions().enqueue(queue, NewJob.of("x"));
            ClaimedJob job = claimOne(LEASE);
            assertThat(client.leases().stop(job.lease(), "stopped")).as("no cancel requested: nothing changes")
                    .isEqualTo(new StopOutcome.NotRequested(job.lease()));
            assertThat(stateOf(job.id())).isEqualTo(JobState.ACTIVE);

            client.admin().cancel(queue, job.id());
            Lease stale = new Lease(queue, job.id(), job.lease().jobCreatedMs(), job.attempt() + 1);
            assertThat(client.leases().stop(stale, "zombie")).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.STALE_TOKEN));
            assertThat(client.leases().stop(new Lease(queue, job.id(), job.lease().jobCreatedMs() + 1, job.attempt()), "other job"))
                    .isInstanceOfSatisfying(Rejected.class, r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.NOT_FOUND));
            assertThat(stateOf(job.id())).isEqualTo(JobState.ACTIVE);

            assertThat(client.leases().stop(job.lease(), "the handler stopped")).isInstanceOf(StopOutcome.Stopped.class);
            assertThat(stateOf(job.id())).isEqualTo(JobState.CANCELLED);
            assertThat(redis.zscore(keys.active(), job.id())).isNull();
            assertThat(redis.zscore(keys.cancelled(), job.id())).isNotNull();
            assertThat(client.leases().stop(job.lease(), "again")).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.NOT_ACTIVE));
            assertThat(client.leases().complete(job.lease())).as("a stopped job cannot be completed after all").isInstanceOf(Rejected.class);
        }

        @Test
        void aRequeueDropsACancelRequestLeftFromAnEarlierRun() {
            client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(1));
            ClaimedJob job = claimOne(LEASE);
            client.leases().retry(job.lease(), "failed", Backoff.NONE, FailureKind.RETRYABLE);
            assertThat(stateOf(job.id())).isEqualTo(JobState.DEAD);
            // A dead job that still carries a cancel request: stored data the scripts never write themselves (a job whose
            // cancel was requested ends cancelled), which a requeue must not carry into the next run.
            redis.hset(keys.job(job.id()), "cancel_requested", "1");

            client.admin().requeue(queue, job.id());
            ClaimedJob again = claimOne(LEASE);
            assertThat(client.leases().extend(again.lease(), LEASE)).isInstanceOfSatisfying(LeaseExtension.Extended.class,
                    e -> assertThat(e.cancelRequested()).isFalse());
        }

        @Test
        void cancellingAnUnknownJobSaysSo() {
            assertThat(client.admin().cancel(queue, "12345")).isInstanceOfSatisfying(ManualTransition.Refused.class,
                    r -> assertThat(r.current()).isEmpty());
        }

        @Test
        void deadJobRequeuedGetsAFreshBudgetAndANewToken() {
            client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(1));
            ClaimedJob first = claimOne(LEASE);
            client.leases().retry(first.lease(), "failed", Backoff.NONE, FailureKind.RETRYABLE);
            assertThat(stateOf(first.id())).isEqualTo(JobState.DEAD);

            assertThat(client.admin().requeue(queue, first.id())).isInstanceOf(ManualTransition.Moved.class);

            ClaimedJob again = claimOne(LEASE);
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(client.reads().job(queue, first.id()).orElseThrow().maxAttempts()).isEqualTo(2);
            assertThat(client.leases().complete(first.lease())).isInstanceOf(Rejected.class);
            assertThat(client.leases().complete(again.lease())).isInstanceOf(Settlement.Completed.class);
        }

        @Test
        void reconcileCompletesWaitingAndEndedJobsWithANote() {
            Enqueued pending = client.submissions().enqueue(queue, NewJob.of("p").inLane("solo"));
            Enqueued delayed = client.submissions().enqueue(queue, NewJob.of("d").delayedBy(Duration.ofMinutes(5)));
            Enqueued cancelled = client.submissions().enqueue(queue, NewJob.of("c").delayedBy(Duration.ofMinutes(5)));
            client.admin().cancel(queue, cancelled.id());

            for (Enqueued job : List.of(pending, delayed, cancelled)) {
                assertThat(client.admin().reconcile(queue, job.id(), createdMs(job.id()), "effect found")).isInstanceOf(ManualTransition.Moved.class);
                JobView view = client.reads().job(queue, job.id()).orElseThrow();
                assertThat(view.state()).isEqualTo(JobState.COMPLETED);
                assertThat(view.note()).contains("effect found");
            }
            QueueStats stats = client.reads().stats(queue);
            assertThat(stats.completed()).isEqualTo(3);
            assertThat(stats.total()).isEqualTo(3);
            assertThat(redis.llen(keys.ring())).as("the emptied lane left the ring").isZero();
        }

        @Test
        void reconcileLeavesAJobWithTheEffectsIdButAnotherCreationTimeAlone() {
            Enqueued job = client.submissions().enqueue(queue, NewJob.of("d").delayedBy(Duration.ofMinutes(5)));

            // The effect row belongs to an earlier job that had this id (before a failover lost it).
            assertThat(client.admin().reconcile(queue, job.id(), createdMs(job.id()) - 1, "effect of the earlier job"))
                    .isInstanceOfSatisfying(ManualTransition.Refused.class, r -> assertThat(r.current()).isEmpty());
            assertThat(stateOf(job.id())).isEqualTo(JobState.DELAYED);
        }

        @Test
        void reconcileLeavesActiveAndCompletedJobsAlone() {
            client.submissions().enqueue(queue, NewJob.of("x"));
            ClaimedJob active = claimOne(LEASE);
            assertThat(client.admin().reconcile(queue, active.id(), active.lease().jobCreatedMs(), "r")).isInstanceOfSatisfying(ManualTransition.Refused.class,
                    r -> assertThat(r.current()).contains(JobState.ACTIVE));
            client.leases().complete(active.lease());
            assertThat(client.admin().reconcile(queue, active.id(), active.lease().jobCreatedMs(), "r")).isInstanceOf(ManualTransition.Refused.class);
            assertThat(client.admin().reconcile(queue, "424242", 0, "r")).isInstanceOfSatisfying(ManualTransition.Refused.class,
                    r -> assertThat(r.current()).isEmpty());
        }

        @Test
        void historyTellsWhyAJobRanTwice() {
            Enqueued job = client.submissions().enqueue(queue, NewJob.of("x"));
            ClaimedJob zombie = claimOne(SHORT_LEASE);
            awaitServerTimePast(zombie.leaseUntil());
            assertThat(client.admin().reap(queue, 10).jobIds()).containsExactly(zombie.id());
            ClaimedJob successor = claimOne(LEASE);
            client.leases().extend(successor.lease(), LEASE);
            client.leases().extend(successor.lease(), LEASE);
            client.leases().complete(zombie.lease());
            client.leases().complete(successor.lease());

            List<JobEvent> history = client.reads().history(queue, job.id());

            assertThat(history).extracting(JobEvent::event)
                    .containsExactly("enqueued", "claimed", "reaped", "claimed", "extended", "rejected", "completed");
            assertThat(history.get(1).attempt()).contains(1L);
            assertThat(history.get(1).worker()).contains("worker-a");
            assertThat(history.get(1).leaseUntil()).isPresent();
            assertThat(history.get(4).detail()).isEqualTo("2 heartbeats");
            assertThat(history.get(5).detail()).contains("token 1").contains("attempt 2");
            assertThat(history.get(6).attempt()).contains(2L);
        }

        @Test
        void finishedJobsCanBeDeletedWithTheirHistory() {
            Enqueued pending = client.submissions().enqueue(queue, NewJob.of("p"));
            Enqueued done = client.submissions().enqueue(queue, NewJob.of("d").withIdempotencyKey("key"));
            client.admin().cancel(queue, done.id());

            assertThat(client.admin().remove(queue, done.id())).isEqualTo(new ManualTransition.Removed(queue, done.id(), JobState.CANCELLED));
            assertThat(client.reads().job(queue, done.id())).isEmpty();
            assertThat(client.reads().history(queue, done.id())).isEmpty();
            assertThat(client.submissions().enqueue(queue, NewJob.of("again").withIdempotencyKey("key")).replayed()).isFalse();
            assertThat(client.admin().remove(queue, pending.id())).isInstanceOfSatisfying(ManualTransition.Refused.class,
                    r -> assertThat(r.current()).contains(JobState.PENDING));
            assertThat(client.admin().remove(queue, "777777")).isInstanceOf(ManualTransition.Refused.class);
        }

        @Test
        void onlyDeadJobsCanBeRequeued() {
            Enqueued job = client.submissions().enqueue(queue, NewJob.of("x"));
            assertThat(client.admin().requeue(queue, job.id())).isInstanceOfSatisfying(ManualTransition.Refused.class,
                    r -> assertThat(r.current()).contains(JobState.PENDING));
        }
    }

    @Nested
    class Retention {
        @Test
        void finishedJobsBeyondTheCountAreDeletedOldestFirst() {
            List<String> completed = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                completed.add(client.submissions().enqueue(queue, NewJob.of("x" + i).withIdempotencyKey("key-" + i)).id());
                client.leases().complete(claimOne(LEASE).lease());
            }
            client.submissions().enqueue(queue, NewJob.of("still pending"));
            io.echomq.queue.Retention keepTwo = new io.echomq.queue.Retention(2, Duration.ofDays(1), 10, Duration.ofDays(1), 100);

            TrimResult trimmed = client.admin().trim(queue, keepTwo);

            assertThat(trimmed).isEqualTo(new TrimResult(queue, 3, 0, 0));
            assertThat(redis.zrange(keys.completed(), 0, -1)).containsExactlyInAnyOrderElementsOf(completed.subList(3, 5));
            completed.subList(0, 3).forEach(gone -> assertThat(client.reads().job(queue, gone)).as("job %s", gone).isEmpty());
            assertThat(client.reads().stats(queue).pending()).isEqualTo(1);
            assertThat(redis.hlen(keys.idempotency())).as("keys of deleted jobs are released").isEqualTo(2);
            assertThat(client.submissions().enqueue(queue, NewJob.of("new").withIdempotencyKey("key-0")).replayed()).isFalse();
            assertThat(client.submissions().enqueue(queue, NewJob.of("dup").withIdempotencyKey("key-4")).replayed()).isTrue();
        }

        @Test
        void finishedJobsOlderThanTheAgeAreDeleted() {
            client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(1));
            ClaimedJob job = claimOne(LEASE);
            client.leases().retry(job.lease(), "fail", Backoff.NONE, FailureKind.RETRYABLE);
            Enqueued young = client.submissions().enqueue(queue, NewJob.of("y").withMaxAttempts(1));
            Duration age = Duration.ofMillis(300);
            io.echomq.queue.Retention tenMs = new io.echomq.queue.Retention(100, Duration.ofDays(1), 100, age, 100);
            awaitServerTimePast(finishedAt(job.id()).plus(age));
            client.leases().retry(claimOne(LEASE).lease(), "fail", Backoff.NONE, FailureKind.RETRYABLE);

            assertThat(client.admin().trim(queue, tenMs)).isEqualTo(new TrimResult(queue, 0, 0, 1));
            assertThat(client.reads().job(queue, job.id())).isEmpty();
            assertThat(redis.zrange(keys.dead(), 0, -1)).as("the job that died within the age stays").containsExactly(young.id());
        }

        @Test
        void aScriptCallDeletesAtMostItsBatchAndAPassRepeatsCallsUntilTheBoundsHold() {
            for (int i = 0; i < 7; i++) {
                client.submissions().enqueue(queue, NewJob.of("x" + i));
            }
            client.leases().claim(queue, LEASE, 7, "w").forEach(j -> client.leases().complete(j.lease()));
            io.echomq.queue.Retention none = new io.echomq.queue.Retention(0, Duration.ofDays(1), 0, Duration.ofDays(1), 3);
            List<String> args = List.of(keys.prefix(), "0", Long.toString(Duration.ofDays(1).toMillis()), "0",
                    Long.toString(Duration.ofDays(1).toMillis()), "3");

            Object oneCall = new ScriptRunner(redis, ReplicaWait.NONE).run(Script.TRIM, keys, null, args);

            assertThat(oneCall).isEqualTo(List.of(3L, 0L, 0L));
            assertThat(client.admin().trim(queue, none).total()).as("two calls of 3 and 1").isEqualTo(4);
            assertThat(client.reads().stats(queue).completed()).isZero();
        }

        @Test
        void completingKeepsTheCompletedSetWithinItsCountAsJobsSettle() {
            QueueClient keepThree = QueueClient.connect(redis, QueueSettings.DEFAULT.withRetention(
                    new io.echomq.queue.Retention(3, Duration.ofDays(1), 10, Duration.ofDays(1), 100)));
            List<String> completed = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Enqueued job = keepThree.submissions().enqueue(queue, NewJob.of("x" + i).withIdempotencyKey("key-" + i));
                ClaimedJob claimed = claimOne(LEASE);
                if (i % 2 == 0) {
                    assertThat(keepThree.leases().complete(claimed.lease())).isInstanceOf(Settlement.Completed.class);
                } else {
                    assertThat(keepThree.leases().completeAndClaim(queue, List.of(claimed.lease()), LEASE, 0, "w").settlements())
                            .singleElement().isInstanceOf(Settlement.Completed.class);
                }
                completed.add(job.id());
                assertThat(redis.zcard(keys.completed())).as("after %d completions", i + 1).isEqualTo(Math.min(i + 1, 3));
            }

            assertThat(redis.zrange(keys.completed(), 0, -1)).containsExactlyInAnyOrderElementsOf(completed.subList(5, 8));
            for (String gone : completed.subList(0, 5)) {
                assertThat(client.reads().job(queue, gone)).isEmpty();
                assertThat(client.reads().history(queue, gone)).as("history deleted with the job").isEmpty();
            }
            assertThat(redis.hlen(keys.idempotency())).as("keys of deleted jobs are released").isEqualTo(3);
            assertThat(client.reads().stats(queue).total()).isEqualTo(3);
        }

        @Test
        void theSettlePathDeletesAtMostTwoJobsPerJobSettled() {
            for (int i = 0; i < 6; i++) {
                client.submissions().enqueue(queue, NewJob.of("x" + i));
            }
            client.leases().claim(queue, LEASE, 5, "w").forEach(j -> client.leases().complete(j.lease()));
            QueueClient keepNone = QueueClient.connect(redis, QueueSettings.DEFAULT.withRetention(
                    new io.echomq.queue.Retention(0, Duration.ofDays(1), 10, Duration.ofDays(1), 100)));

            keepNone.leases().complete(claimOne(LEASE).lease());

            assertThat(redis.zcard(keys.completed())).as("6 completed, the 2 oldest deleted by the sixth completion").isEqualTo(4);
        }

        @Test
        void completingDeletesCompletedJobsOlderThanTheAge() {
            QueueClient young = QueueClient.connect(redis, QueueSettings.DEFAULT.withRetention(
                    new io.echomq.queue.Retention(100, Duration.ofMillis(20), 10, Duration.ofDays(1), 100)));
            Enqueued first = client.submissions().enqueue(queue, NewJob.of("old"));
            young.leases().complete(claimOne(LEASE).lease());
            awaitServerTimePast(finishedAt(first.id()).plus(Duration.ofMillis(20)));
            Enqueued second = client.submissions().enqueue(queue, NewJob.of("new"));

            young.leases().complete(claimOne(LEASE).lease());

            assertThat(client.reads().job(queue, first.id())).isEmpty();
            assertThat(redis.zrange(keys.completed(), 0, -1)).containsExactly(second.id());
        }
    }

    @Nested
    class Validation {
        @Test
        void badQueueNamesAreRefusedNamingTheField() {
            for (String bad : new String[] {"", "a{b}", "a:b", "with space", "x".repeat(65), "-leading", "new\nline"}) {
                assertThatThrownBy(() -> client.submissions().enqueue(bad, NewJob.of("x")))
                        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("queue"));
            }
        }

        @Test
        void refusedSubmissionsEnqueueNothing() {
            QueueClient small = QueueClient.connect(redis, QueueSettings.DEFAULT.withMaxPayloadBytes(10));
            assertField("payload", () -> small.submissions().enqueue(queue, NewJob.of("12345678901")));
            assertField("payload", () -> small.submissions().enqueue(queue, NewJob.of("ééééé é")));
            assertField("payload", () -> small.submissions().enqueue(queue, NewJob.of(null)));
            assertField("lane", () -> client.submissions().enqueue(queue, NewJob.of("x").inLane("{other}")));
            assertField("maxAttempts", () -> client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(0)));
            assertField("maxAttempts", () -> client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(1_001)));
            assertField("delay", () -> client.submissions().enqueue(queue, NewJob.of("x").delayedBy(Duration.ofMillis(-1))));
            assertField("delay", () -> client.submissions().enqueue(queue, NewJob.of("x").delayedBy(Duration.ofDays(400))));
            assertField("idempotencyKey", () -> client.submissions().enqueue(queue, NewJob.of("x").withIdempotencyKey("")));
            assertField("idempotencyKey", () -> client.submissions().enqueue(queue, NewJob.of("x").withIdempotencyKey("a\u0000b")));

            assertThat(small.submissions().enqueue(queue, NewJob.of("1234567890")).state()).isEqualTo(JobState.PENDING);
            assertThat(client.reads().stats(queue).total()).as("only the valid job exists").isEqualTo(1);
        }

        @Test
        void badClaimAndSettlementArgumentsAreRefused() {
            assertField("lease", () -> client.leases().claim(queue, Duration.ZERO, 1, "w"));
            assertField("maxJobs", () -> client.leases().claim(queue, LEASE, 0, "w"));
            assertField("workerId", () -> client.leases().claim(queue, LEASE, 1, " "));
            assertField("jobId", () -> client.leases().complete(new Lease(queue, "1}", 1, 1)));
            assertField("token", () -> client.leases().complete(new Lease(queue, "1", 1, 0)));
        }

        @Test
        void settingsRefuseImpossibleValuesNamingThem() {
            assertField("maxPayloadBytes", () -> QueueSettings.DEFAULT.withMaxPayloadBytes(0));
            assertField("defaultMaxAttempts", () -> QueueSettings.DEFAULT.withDefaultMaxAttempts(0));
            assertField("backoff.cap", () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        }

        private void assertField(String field, Runnable call) {
            assertThatThrownBy(call::run).isInstanceOfSatisfying(InvalidRequestException.class,
                    e -> assertThat(e.field()).isEqualTo(field));
        }
    }

    @Nested
    class Listing {
        @Test
        void pendingPagesWalkEveryLaneOldestFirst() {
            List<String> ids = new java.util.ArrayList<>();
            for (int i = 0; i < 7; i++) {
                ids.add(client.submissions().enqueue(queue, NewJob.of("p" + i).inLane(i % 2 == 0 ? "even" : "odd")).id());
            }
            List<String> seen = new java.util.ArrayList<>();
            java.util.Optional<String> cursor = java.util.Optional.empty();
            int pages = 0;
            do {
                JobPage page = client.reads().jobs(queue, JobState.PENDING, cursor, 3);
                page.jobs().forEach(j -> seen.add(j.id()));
                cursor = page.next();
                pages++;
            } while (cursor.isPresent());

            assertThat(seen).containsExactlyElementsOf(ids);
            assertThat(pages).isEqualTo(3);
        }

        @Test
        void finishedPagesSurviveJobsFinishingInTheSameMillisecond() {
            for (int i = 0; i < 25; i++) {
                client.submissions().enqueue(queue, NewJob.of("x" + i));
            }
            client.leases().claim(queue, LEASE, 25, "w").forEach(j -> client.leases().complete(j.lease()));

            List<String> seen = new java.util.ArrayList<>();
            java.util.Optional<String> cursor = java.util.Optional.empty();
            do {
                JobPage page = client.reads().jobs(queue, JobState.COMPLETED, cursor, 4);
                page.jobs().forEach(j -> seen.add(j.id()));
                cursor = page.next();
            } while (cursor.isPresent());

            assertThat(seen).hasSize(25).doesNotHaveDuplicates();
        }

        @Test
        void aForeignCursorIsRefused() {
            assertThatThrownBy(() -> client.reads().jobs(queue, JobState.DEAD, java.util.Optional.of("garbage"), 10))
                    .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        }
    }

    @Nested
    class Server {
        @Test
        void scriptsSurviveAScriptCacheFlush() {
            client.submissions().enqueue(queue, NewJob.of("before"));
            redis.scriptFlush();

            Enqueued after = client.submissions().enqueue(queue, NewJob.of("after"));
            assertThat(after.state()).isEqualTo(JobState.PENDING);
            assertThat(client.leases().claim(queue, LEASE, 2, "w")).hasSize(2);
        }

        @Test
        void anEvictingServerIsRefusedWhenTheSettingsSaySoAndOtherwiseWarnedAbout() {
            String original = redis.configGet("maxmemory-policy").get("maxmemory-policy");
            List<LogRecord> logged = new CopyOnWriteArrayList<>();
            Handler recorder = recordingHandler(logged);
            Logger guardLog = Logger.getLogger(EvictionPolicyGuard.class.getName());
            guardLog.addHandler(recorder);
            redis.configSet("maxmemory-policy", "allkeys-lru");
            try {
                assertThatThrownBy(() -> QueueClient.connect(redis,
                        QueueSettings.DEFAULT.withEvictionPolicyCheck(EvictionPolicyCheck.REFUSE)))
                        .isInstanceOf(UnsafeServerException.class)
                        .hasMessageContaining("allkeys-lru").hasMessageContaining("noeviction");
                assertThat(logged).as("REFUSE refuses without a warning").isEmpty();

                QueueClient warned = QueueClient.connect(redis, QueueSettings.DEFAULT);

                assertThat(logged).as("WARN warns").singleElement().satisfies(r -> {
                    assertThat(r.getLevel()).isEqualTo(Level.WARNING);
                    assertThat(r.getMessage()).contains("allkeys-lru").contains("noeviction");
                });
                assertThat(warned.submissions().enqueue(queue, NewJob.of("x")).state()).as("... and only warns").isEqualTo(JobState.PENDING);
            } finally {
                redis.configSet("maxmemory-policy", original);
                guardLog.removeHandler(recorder);
            }
        }

        private static Handler recordingHandler(List<LogRecord> into) {
            return new Handler() {
                @Override
                public void publish(LogRecord record) {
                    into.add(record);
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
        }

        @Test
        void statsCountEveryState() {
            client.submissions().enqueue(queue, NewJob.of("pending"));
            client.submissions().enqueue(queue, NewJob.of("delayed").delayedBy(Duration.ofMinutes(1)));
            client.submissions().enqueue(queue, NewJob.of("to complete"));
            client.submissions().enqueue(queue, NewJob.of("to fail").withMaxAttempts(1));
            client.submissions().enqueue(queue, NewJob.of("to cancel").inLane("other"));
            List<ClaimedJob> claimed = client.leases().claim(queue, LEASE, 3, "w");
            // Round-robin: default lane first ("pending"), then "other", then default again.
            assertThat(claimed).extracting(ClaimedJob::payload).containsExactly("pending", "to cancel", "to complete");
            client.leases().complete(claimed.get(2).lease());
            client.leases().retry(claimed.get(1).lease(), "x", Backoff.NONE, FailureKind.PERMANENT);

            QueueStats stats = client.reads().stats(queue);
            assertThat(stats.pending()).isEqualTo(1);
            assertThat(stats.delayed()).isEqualTo(1);
            assertThat(stats.active()).isEqualTo(1);
            assertThat(stats.completed()).isEqualTo(1);
            assertThat(stats.dead()).isEqualTo(1);
            assertThat(stats.total()).isEqualTo(5);
        }
    }
}
