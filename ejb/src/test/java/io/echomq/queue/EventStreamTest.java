package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The job-event stream (echomq:{q}:events): every state change lands in it, in order, from the
 * script that made the change; a follower resumes after the last entry it read and misses or
 * repeats nothing; the cap bounds it; filters and bad input behave.
 */
@Timeout(60)
class EventStreamTest extends RealQueueTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private ClaimedJob claimOne(Duration lease) {
        List<ClaimedJob> jobs = client.leases().claim(queue, lease, 1, "w1");
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    private List<QueueEvent> all(EventFilter filter) {
        return client.reads().events(queue, "0", filter, QueueReads.MAX_EVENTS_PAGE).events();
    }

    private List<String> typesOf(String jobId) {
        return all(EventFilter.of(Optional.of(jobId), Optional.empty(), Set.of())).stream().map(QueueEvent::event).toList();
    }

    @Test
    void everyStateChangeOfAJobIsStreamedInOrderWithItsLaneAttemptAndCreationTime() {
        Enqueued a = client.submissions().enqueue(queue, NewJob.of("a").inLane("eu").withMaxAttempts(1).delayedBy(Duration.ofHours(1)));
        client.admin().reschedule(queue, a.id(), Duration.ofHours(2));
        client.admin().promote(queue, a.id());
        ClaimedJob first = claimOne(LEASE);
        client.leases().extend(first.lease(), LEASE);
        client.leases().extend(first.lease(), LEASE, new Progress(40, "halfway"));
        client.leases().retry(first.lease(), "boom", Backoff.NONE, FailureKind.RETRYABLE);
        client.admin().requeue(queue, a.id());
        ClaimedJob second = claimOne(LEASE);
        client.leases().complete(second.lease());
        client.leases().complete(first.lease());
        client.admin().remove(queue, a.id());

        assertThat(typesOf(a.id())).as("heartbeats are no news; a stale settlement is refused and says so")
                .containsExactly("enqueued", "rescheduled", "promoted", "claimed", "progress", "dead", "requeued", "claimed",
                        "completed", "rejected", "removed");
        List<QueueEvent> events = all(EventFilter.of(Optional.of(a.id()), Optional.empty(), Set.of()));
        assertThat(events).extracting(QueueEvent::lane).containsOnly("eu");
        assertThat(events).extracting(QueueEvent::created).containsOnly(Optional.of(java.time.Instant.ofEpochMilli(first.lease().jobCreatedMs())));
        assertThat(events).filteredOn(e -> e.event().equals("claimed")).extracting(QueueEvent::attempt)
                .containsExactly(Optional.of(1L), Optional.of(2L));
        assertThat(events.get(4).detail()).isEqualTo("40% halfway");
        assertThat(events).extracting(QueueEvent::id).isSorted();
    }

    @Test
    void retriesCancellationsAndReapsAreStreamed() {
        Enqueued retried = client.submissions().enqueue(queue, NewJob.of("r").withMaxAttempts(3));
        client.leases().retry(claimOne(LEASE).lease(), "flaky", Backoff.NONE, FailureKind.RETRYABLE);
        client.leases().complete(claimOne(LEASE).lease());
        Enqueued cancelled = client.submissions().enqueue(queue, NewJob.of("c").delayedBy(Duration.ofHours(1)));
        client.admin().cancel(queue, cancelled.id());
        Enqueued reaped = client.submissions().enqueue(queue, NewJob.of("x").withMaxAttempts(2));
        ClaimedJob lost = claimOne(Duration.ofMillis(20));
        awaitServerTimePast(lost.leaseUntil());
        client.admin().reap(queue, 10);

        assertThat(typesOf(retried.id())).containsExactly("enqueued", "claimed", "retried", "claimed", "completed");
        assertThat(typesOf(cancelled.id())).containsExactly("enqueued", "cancelled");
        assertThat(typesOf(reaped.id())).containsExactly("enqueued", "claimed", "reaped");
    }

    @Test
    void aFollowerResumedAfterTheLastEntryItReadMissesAndRepeatsNothing() throws Exception {
        String from = client.reads().lastEventId(queue);
        List<Enqueued> jobs = client.submissions().enqueueBatch(queue, IntStream.range(0, 50).mapToObj(i -> NewJob.of("p" + i)).toList());
        List<String> read = new ArrayList<>();
        String resumeAfter;
        try (EventIterator follower = client.reads().follow(queue, Optional.of(from), EventFilter.ALL)) {
            for (int i = 0; i < 20; i++) {
                read.add(follower.next().jobId());
            }
            resumeAfter = follower.lastRead();
        }
        // Meanwhile, more events: the resumed follower must see them too, once.
        client.submissions().enqueueBatch(queue, IntStream.range(50, 80).mapToObj(i -> NewJob.of("p" + i)).toList());

        List<String> resumed = new ArrayList<>();
        try (EventIterator follower = client.reads().follow(queue, Optional.of(resumeAfter), EventFilter.ALL)) {
            while (resumed.size() < 60) {
                resumed.add(follower.next().jobId());
            }
            assertThat(follower.poll(Duration.ofMillis(200))).as("nothing beyond the 80 enqueues").isEmpty();
        }
        List<String> seen = new ArrayList<>(read);
        seen.addAll(resumed);
        List<String> expected = IntStream.rangeClosed(1, 80).mapToObj(Integer::toString).toList();
        long repeated = seen.size() - seen.stream().distinct().count();
        long missed = expected.stream().filter(id -> !seen.contains(id)).count();
        System.out.println("event-stream resume (Java iterator): read=" + read.size() + " resumed_from=" + resumeAfter
                + " then=" + resumed.size() + " missed=" + missed + " repeated=" + repeated);
        assertThat(jobs.get(0).id()).isEqualTo("1");
        assertThat(seen).containsExactlyElementsOf(expected);
    }

    @Test
    void aFollowerFromNowWaitsForTheNextEventAndCloseEndsTheWait() throws Exception {
        client.submissions().enqueue(queue, NewJob.of("before"));
        try (EventIterator follower = client.reads().follow(queue, Optional.empty(), EventFilter.ALL)) {
            CompletableFuture<QueueEvent> next = CompletableFuture.supplyAsync(follower::next);
            Enqueued after = client.submissions().enqueue(queue, NewJob.of("after"));
            QueueEvent event = next.get(10, TimeUnit.SECONDS);
            assertThat(event.jobId()).isEqualTo(after.id());
            assertThat(event.event()).isEqualTo("enqueued");

            CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(follower::hasNext);
            follower.close();
            assertThat(waiting.get(10, TimeUnit.SECONDS)).as("closed: no more events").isFalse();
        }
    }

    @Test
    void theCapBoundsTheStreamUnderLoadAndZeroTurnsItOff() {
        client.admin().setEventStream(queue, 200);
        for (int round = 0; round < 20; round++) {
            client.submissions().enqueueBatch(queue, IntStream.range(0, 100).mapToObj(i -> NewJob.of("x")).toList());
            for (ClaimedJob job : client.leases().claim(queue, LEASE, 100, "w")) {
                client.leases().complete(job.lease());
            }
            assertThat(client.reads().eventStreamLength(queue)).as("cap 200 plus one stream node (100)").isLessThanOrEqualTo(300);
        }
        assertThat(client.reads().eventStreamLength(queue)).isGreaterThanOrEqualTo(200);

        assertThat(client.admin().setEventStream(queue, 0)).isZero();
        client.submissions().enqueue(queue, NewJob.of("unseen"));
        assertThat(redis.exists(keys.events())).as("off: no stream at all").isFalse();
        assertThat(client.reads().job(queue, "2001")).isPresent();
    }

    @Test
    void filtersByJobLaneAndEventType() {
        Enqueued eu = client.submissions().enqueue(queue, NewJob.of("a").inLane("eu"));
        Enqueued us = client.submissions().enqueue(queue, NewJob.of("b").inLane("us"));
        ClaimedJob claimed = claimOne(LEASE);
        client.leases().complete(claimed.lease());

        assertThat(all(EventFilter.of(Optional.empty(), Optional.of("us"), Set.of()))).extracting(QueueEvent::jobId)
                .containsOnly(us.id());
        assertThat(all(EventFilter.of(Optional.of(eu.id()), Optional.empty(), Set.of("completed")))).extracting(QueueEvent::event)
                .containsExactly(claimed.id().equals(eu.id()) ? new String[] {"completed"} : new String[0]);
        assertThat(all(EventFilter.of(Optional.empty(), Optional.empty(), Set.of("enqueued", "claimed")))).hasSize(3);
    }

    @Test
    void badInputNamesItsField() {
        assertThatThrownBy(() -> client.reads().events(queue, "yesterday", EventFilter.ALL, 10))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("from"));
        assertThatThrownBy(() -> EventFilter.of(Optional.empty(), Optional.empty(), Set.of("exploded")))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("event"));
        assertThatThrownBy(() -> EventFilter.of(Optional.of("x1"), Optional.empty(), Set.of()))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("job"));
        assertThatThrownBy(() -> EventFilter.of(Optional.empty(), Optional.of("a:b"), Set.of()))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("lane"));
        assertThatThrownBy(() -> client.admin().setEventStream(queue, -1))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("maxLength"));
    }
}
