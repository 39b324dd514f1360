package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.limits.QueueLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Priorities within a lane, and the queue's and lanes' caps and rate limits, against a real server. */
class PrioritiesAndLimitsTest extends RealQueueTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private String enqueue(String lane, int priority) {
        return client.submissions().enqueue(queue, NewJob.of("{}").inLane(lane).withPriority(priority)).id();
    }

    private List<String> enqueueMany(String lane, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(client.submissions().enqueue(queue, NewJob.of("{}").inLane(lane)).id());
        }
        return ids;
    }

    private List<ClaimedJob> claim(int max) {
        return client.leases().claim(queue, LEASE, max, "worker-a");
    }

    private static List<String> ids(List<ClaimedJob> jobs) {
        return jobs.stream().map(ClaimedJob::id).toList();
    }

    private static List<String> lanes(List<ClaimedJob> jobs) {
        return jobs.stream().map(ClaimedJob::lane).toList();
    }

    private static void complete(ClaimedJob job) {
        assertThat(client.leases().complete(job.lease())).isInstanceOf(Settlement.Completed.class);
    }

    @Nested
    class Priorities {
        @Test
        void aLaneGivesItsHighestPriorityFirstAndTheOldestFirstWithinAPriority() {
            String low = enqueue("a", 1);
            String normal = enqueue("a", NewJob.DEFAULT_PRIORITY);
            String urgentOld = enqueue("a", 9);
            String urgentNew = enqueue("a", 9);
            String high = enqueue("a", 7);

            assertThat(ids(claim(10))).containsExactly(urgentOld, urgentNew, high, normal, low);
        }

        @Test
        void lanesAreStillServedInTurnWhateverTheirPriorities() {
            for (int i = 0; i < 3; i++) {
                enqueue("urgent", 9);
            }
            for (int i = 0; i < 3; i++) {
                enqueue("bulk", 0);
            }

            assertThat(lanes(claim(6))).containsExactly("urgent", "bulk", "urgent", "bulk", "urgent", "bulk");
        }

        @Test
        void aWaitingJobIsOvertakenByAtMostAMillionLaterSubmissionsPerLevelOfDifference() {
            String old = enqueue("a", 0);
            // Nine levels below the top: the later top-priority jobs overtake it while fewer than
            // 9 million submissions separate them, and no longer.
            redis.incrBy(keys.seq(), 8_999_998);
            String overtakes = enqueue("a", 9);
            String waitsBehind = enqueue("a", 9);

            assertThat(ids(claim(3))).containsExactly(overtakes, old, waitsBehind);
        }

        @Test
        void aJobKeepsItsPriorityWhenItGoesBackToPending() {
            String urgent = enqueue("a", 8);
            ClaimedJob first = claim(1).get(0);
            assertThat(first.id()).isEqualTo(urgent);
            String normal = enqueue("a", NewJob.DEFAULT_PRIORITY);

            client.leases().retry(first.lease(), "boom", Backoff.NONE, FailureKind.RETRYABLE);

            assertThat(ids(claim(2))).containsExactly(urgent, normal);
        }

        @Test
        void thePendingListShowsEachJobsPriorityInClaimOrder() {
            String normal = enqueue("a", NewJob.DEFAULT_PRIORITY);
            String urgent = enqueue("a", 9);
            String low = enqueue("a", 0);

            JobPage first = client.reads().jobs(queue, JobState.PENDING, Optional.empty(), 2);
            JobPage second = client.reads().jobs(queue, JobState.PENDING, first.next(), 2);

            assertThat(first.jobs()).extracting(JobView::id).containsExactly(urgent, normal);
            assertThat(first.jobs()).extracting(JobView::priority).containsExactly(9, 4);
            assertThat(second.jobs()).extracting(JobView::id).containsExactly(low);
        }

        @Test
        void aPriorityOutsideZeroToNineIsRefusedNamingTheField() {
            assertThatThrownBy(() -> client.submissions().enqueue(queue, NewJob.of("{}").withPriority(10)))
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageStartingWith("priority: must be between 0 and 9, was 10");
            assertThatThrownBy(() -> client.submissions().enqueueBatch(queue, List.of(NewJob.of("{}"), NewJob.of("{}").withPriority(-1))))
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageStartingWith("jobs[1].priority: must be between 0 and 9");
            assertThat(client.reads().stats(queue).total()).isZero();
        }
    }

    @Nested
    class Caps {
        @Test
        void theQueueNeverHasMoreActiveJobsThanItsCap() {
            client.admin().setLimits(queue, QueueLimits.NONE.withMaxActive(2));
            enqueueMany("a", 5);

            List<ClaimedJob> first = claim(10);
            assertThat(first).hasSize(2);
            assertThat(claim(10)).isEmpty();

            complete(first.get(0));
            assertThat(claim(10)).hasSize(1);
            assertThat(client.reads().stats(queue).pending()).isEqualTo(2);
        }

        @Test
        void aLaneAtItsCapWaitsAsPendingWhileTheOtherLanesAreServed() {
            client.admin().setLimits(queue, QueueLimits.NONE.withLaneMaxActive(1));
            enqueueMany("a", 3);
            enqueueMany("b", 3);

            List<ClaimedJob> first = claim(10);
            assertThat(lanes(first)).containsExactly("a", "b");
            QueueStats held = client.reads().stats(queue);
            assertThat(held.pending()).isEqualTo(4);
            assertThat(held.lanesHeld()).isEqualTo(2);
            assertThat(held.lanesWithWork()).isEqualTo(2);
            assertThat(client.reads().jobs(queue, JobState.PENDING, Optional.empty(), 10).jobs()).hasSize(4);
            assertThat(claim(10)).isEmpty();

            complete(first.get(0));
            assertThat(lanes(claim(10))).containsExactly("a");
        }

        @Test
        void lanesAtTheirCapInFrontOfTheRingDoNotMakeAClaimComeBackEmpty() {
            client.admin().setLimits(queue, QueueLimits.NONE.withLaneMaxActive(1));
            for (int lane = 0; lane < 100; lane++) {
                enqueueMany("busy-" + lane, 1);
            }
            assertThat(claim(100)).hasSize(100);
            // Each busy lane's next job puts it back in the ring, in front of the free lane, at its cap.
            for (int lane = 0; lane < 100; lane++) {
                enqueueMany("busy-" + lane, 1);
            }
            enqueueMany("free", 1);

            assertThat(lanes(claim(1))).containsExactly("free");
            assertThat(client.reads().stats(queue).lanesHeld()).isEqualTo(100);
        }

        @Test
        void everyWayOutOfTheActiveSetFreesAPlaceUnderTheLaneCap() {
            client.admin().setLimits(queue, QueueLimits.NONE.withLaneMaxActive(1));
            enqueueMany("a", 4);

            ClaimedJob retried = claim(10).get(0);
            client.leases().retry(retried.lease(), "boom", Backoff.NONE, FailureKind.RETRYABLE);
            ClaimedJob cancelled = claim(10).get(0);
            client.admin().cancel(queue, cancelled.id());
            client.leases().stop(cancelled.lease(), "asked to");
            ClaimedJob reaped = client.leases().claim(queue, Duration.ofMillis(10), 10, "worker-a").get(0);
            awaitReaped(reaped.id());

            assertThat(claim(10)).hasSize(1);
        }

        private void awaitReaped(String id) {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (client.reads().job(queue, id).orElseThrow().state() == JobState.ACTIVE) {
                client.admin().reap(queue, 10);
                assertThat(System.nanoTime()).as("the lease of job %s expires", id).isLessThan(deadline);
            }
        }

        @Test
        void aLaneCapSetWhileJobsRunCountsThoseJobs() {
            enqueueMany("a", 3);
            assertThat(claim(2)).hasSize(2);

            client.admin().setLimits(queue, QueueLimits.NONE.withLaneMaxActive(2));

            assertThat(claim(10)).isEmpty();
        }

        @Test
        void clearingTheLimitsServesTheHeldLanesAtOnce() {
            client.admin().setLimits(queue, QueueLimits.NONE.withLaneMaxActive(1));
            enqueueMany("a", 3);
            assertThat(claim(10)).hasSize(1);
            assertThat(client.reads().stats(queue).lanesHeld()).isEqualTo(1);

            client.admin().setLimits(queue, QueueLimits.NONE);

            assertThat(claim(10)).hasSize(2);
            assertThat(client.reads().stats(queue).lanesHeld()).isZero();
        }

        @Test
        void aJobSubmittedToAHeldLaneWaitsInItsLaneNotInTheRing() {
            client.admin().setLimits(queue, QueueLimits.NONE.withLaneMaxActive(1));
            enqueueMany("a", 2);
            ClaimedJob running = claim(10).get(0);
            enqueueMany("a", 1);

            assertThat(claim(10)).isEmpty();
            assertThat(client.reads().stats(queue).pending()).isEqualTo(2);

            complete(running);
            assertThat(claim(10)).hasSize(1);
        }
    }

    @Nested
    class RateLimits {
        @Test
        void theQueueStartsAtMostItsRateInAnyWindow() {
            client.admin().setLimits(queue, QueueLimits.NONE.withRate(3, Duration.ofMillis(400)));
            enqueueMany("a", 10);

            List<ClaimedJob> first = claim(10);
            assertThat(first).hasSize(3);
            first.forEach(PrioritiesAndLimitsTest::complete);
            assertThat(claim(10)).as("completions do not free a started place").isEmpty();

            assertThat(awaitClaim(10)).hasSize(3);
        }

        @Test
        void aLaneOverItsRateIsHeldUntilItsWindowFreesAPlace() {
            client.admin().setLimits(queue, QueueLimits.NONE.withLaneRate(2, Duration.ofMillis(400)));
            enqueueMany("a", 5);
            enqueueMany("b", 1);

            assertThat(lanes(claim(10))).containsExactly("a", "b", "a");
            assertThat(client.reads().stats(queue).lanesHeld()).isEqualTo(1);

            assertThat(lanes(awaitClaim(10))).containsExactly("a", "a");
        }

        /**
         * A rate limit far above the load must not make its start logs grow with the limit: a busy
         * lane's log never expires, so one trimmed only when it could stand in the way would
         * head for the limit's maximum (10^5 here) and then be trimmed in one long command inside
         * a claim. 5,000 starts in 5 s, paced on the server clock at 1,000 a second, against a
         * 1-second window: each log holds about one window of starts.
         */
        @Test
        void startLogsHoldAboutOneWindowOfStartsHoweverHighTheLimit() {
            client.admin().setLimits(queue, QueueLimits.NONE.withRate(100_000, Duration.ofSeconds(1))
                    .withLaneRate(100_000, Duration.ofSeconds(1)));
            List<NewJob> jobs = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                jobs.add(NewJob.of("{}").inLane("hot"));
            }
            for (int from = 0; from < jobs.size(); from += 500) {
                client.submissions().enqueueBatch(queue, jobs.subList(from, from + 500));
            }
            int perCall = 50;
            int started = 0;
            long largestLog = 0;
            while (started < jobs.size()) {
                long next = serverNowMs() + 50;   // never faster than 1,000 a second, even after a slow call
                started += claim(perCall).size();
                awaitServerTime(next);
                largestLog = Math.max(largestLog, Math.max(redis.zcard(keys.prefix() + "started:hot"), redis.zcard(keys.prefix() + "started")));
            }

            assertThat(started).isEqualTo(5_000);
            assertThat(largestLog).as("a window's starts (1,000 a second) and one call's, not every start")
                    .isBetween(900L, 1_000L + 2L * perCall);
        }

        /** Claims until something is claimed: the window frees a place on the server clock, within a second. */
        private List<ClaimedJob> awaitClaim(int max) {
            return await("the window frees a place").atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                    .until(() -> claim(max), jobs -> !jobs.isEmpty());
        }

        @Test
        void limitsAreReadBackAsSetAndBadOnesAreRefusedNamingTheField() {
            QueueLimits limits = QueueLimits.NONE.withMaxActive(50).withRate(100, Duration.ofSeconds(1)).withLaneMaxActive(2)
                    .withLaneRate(10, Duration.ofMinutes(1));
            client.admin().setLimits(queue, limits);
            assertThat(client.reads().limits(queue)).isEqualTo(limits);

            assertThatThrownBy(() -> client.admin().setLimits(queue, QueueLimits.NONE.withLaneRate(5, Duration.ZERO)))
                    .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("laneRate.windowMs: must be between 1 ms");
            assertThatThrownBy(() -> client.admin().setLimits(queue, QueueLimits.NONE.withMaxActive(0)))
                    .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("maxActive: must be between 1 and");
            assertThat(client.reads().limits(queue)).isEqualTo(limits);
        }
    }
}
