package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import io.echomq.queue.EventFilter;
import io.echomq.queue.EventPage;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.MaintenanceLease;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.testkit.RealServices;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.StreamEntryID;

/**
 * A sharded queue's settings, reads and queue-wide limits on the testkit's Valkey Cluster of three
 * masters (docs/SHARDING.md, sections 4, 6, 7 and 8): a pause reaches every shard before it
 * returns, a shard a crash left behind catches up at the next sync, one maintenance lease covers
 * every shard, pages and the event stream merge the shards, and a queue-wide cap or rate split into
 * per-shard parts is never exceeded.
 */
class ShardedMetaClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();

    @Test
    void aPauseStopsClaimsOnEveryShardBeforeItReturnsAndAResumeRestartsThem() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        enqueueLaneless(queue, 30);

        assertThat(queue.admin().pause(name)).isTrue();
        assertThat(queue.leases().claim(name, LEASE, 30, "w1")).as("claims over every shard while paused").isEmpty();
        assertThat(queue.reads().stats(name).paused()).isTrue();

        assertThat(queue.admin().resume(name)).isFalse();
        List<ClaimedJob> claimed = queue.leases().claim(name, LEASE, 30, "w1");
        assertThat(claimed).hasSize(30);
        assertThat(claimed.stream().map(job -> queue.layout().shardOfJob(job.id())).distinct()).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void aShardThatACrashLeftBehindClaimsUntilTheSyncCopiesShardZerosSettings() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        enqueueLaneless(queue, 30);
        ShardSettings before = queue.meta().read();

        ShardSettings paused = queue.meta().writeOnShardZero("1", "", "", "");  // the writer dies before the copies
        assertThat(paused.version()).isGreaterThan(before.version());
        List<ClaimedJob> meanwhile = queue.leases().claim(name, LEASE, 4, "w1");
        assertThat(meanwhile).as("shards 1 and 2 still claim").isNotEmpty()
                .allSatisfy(job -> assertThat(queue.layout().shardOfJob(job.id())).isNotZero());

        assertThat(queue.metaSync().runOnce()).as("shards brought up to date").isEqualTo(2);
        assertThat(queue.leases().claim(name, LEASE, 30, "w1")).as("claims after the sync").isEmpty();
        assertThat(queue.metaSync().runOnce()).as("a second pass finds nothing behind").isZero();

        assertThat(queue.meta().copyTo(1, before)).as("a late copy of an older version").isFalse();
        assertThat(queue.leases().claim(name, LEASE, 30, "w1")).as("claims after the late copy").isEmpty();
    }

    @Test
    void anOperatorSeesWhichShardsACrashLeftBehindShardZerosSettingsUntilTheSyncCopiesThem() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        long version = queue.meta().writeOnShardZero("1", "", "", "").version();  // the writer dies before the copies

        List<ShardView> behind = queue.reads().shards(name);
        assertThat(behind).extracting(ShardView::settingsBehind).as("shards shown behind").containsExactly(false, true, true);
        assertThat(behind.get(0).settingsVersion()).hasValue(version);
        assertThat(behind).extracting(view -> view.stats().paused()).as("paused, shard by shard").containsExactly(true, false, false);

        queue.metaSync().runOnce();
        List<ShardView> synced = queue.reads().shards(name);
        assertThat(synced).extracting(ShardView::settingsBehind).as("after the sync").containsOnly(false);
        assertThat(synced).allSatisfy(view -> assertThat(view.settingsVersion()).hasValue(version));
        assertThat(synced).extracting(view -> view.stats().paused()).containsOnly(true);
    }

    @Test
    void aQueueThatHadOneShardKeepsItsPauseAndLimitsOnEveryShardOnceSharded() {
        String name = "shmeta-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
        QueueClient unsharded = QueueClient.connect(redis, QueueSettings.DEFAULT);
        unsharded.admin().setLimits(name, QueueLimits.NONE.withMaxActive(6));
        unsharded.admin().pause(name);

        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
        enqueueLaneless(queue, 9);

        assertThat(queue.leases().claim(name, LEASE, 9, "w1")).as("claims over every shard of a queue paused before").isEmpty();
        assertThat(queue.reads().limits(name)).isEqualTo(QueueLimits.NONE.withMaxActive(6));
        assertThat(IntStream.range(0, 3).mapToObj(s -> redis.hget(queue.layout().keys(s).meta(), "max_active")))
                .as("each shard's part of the cap it had").containsExactly("2", "2", "2");
        long version = queue.meta().read().version();
        ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
        assertThat(queue.meta().read().limitsInForce().limits()).as("connecting again").isEqualTo(QueueLimits.NONE.withMaxActive(6));
        assertThat(queue.meta().read().version()).isGreaterThan(version);
        queue.admin().resume(name);
        assertThat(queue.leases().claim(name, LEASE, 9, "w1")).as("claims once resumed, under the cap").hasSize(6);
    }

    @Test
    void oneMaintenanceLeaseOnShardZeroCoversEveryShard() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();

        assertThat(queue.admin().holdMaintenance(name, "engine-1", LEASE)).isInstanceOf(MaintenanceLease.Held.class);
        assertThat(queue.admin().holdMaintenance(name, "engine-2", LEASE)).isInstanceOf(MaintenanceLease.HeldBy.class);
        assertThat(redis.exists(queue.layout().keys(0).maintenanceLease())).isTrue();
        for (int shard = 1; shard < 3; shard++) {
            assertThat(redis.exists(queue.layout().keys(shard).maintenanceLease())).as("a lease on shard %d", shard).isFalse();
        }
        assertThat(queue.admin().releaseMaintenance(name, "engine-1")).isTrue();
        assertThat(queue.admin().holdMaintenance(name, "engine-2", LEASE)).isInstanceOf(MaintenanceLease.Held.class);
    }

    @Test
    void aWalkOfPagesListsEveryJobThatStaysPendingExactlyOnceWhileJobsComeAndGo() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        List<String> lanes = List.of("a", "b", "c", "d", "e", NewJob.DEFAULT_LANE);
        Set<String> submitted = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            NewJob job = NewJob.of("p" + i).withPriority(NewJob.DEFAULT_PRIORITY + i % 3);  // ahead of the late ones, which a walk must not miss
            String lane = lanes.get(i % lanes.size());
            submitted.add(queue.submissions().enqueue(name, NewJob.DEFAULT_LANE.equals(lane) ? job : job.inLane(lane)).id());
        }
        Set<String> claimed = new HashSet<>();
        List<String> listed = new ArrayList<>();
        Optional<String> cursor = Optional.empty();
        int pages = 0;
        while (pages < 100) {
            JobPage page = queue.reads().jobs(name, JobState.PENDING, cursor, 7);
            page.jobs().forEach(job -> listed.add(job.id()));
            cursor = page.next();
            pages++;
            if (cursor.isEmpty()) {
                break;
            }
            for (int i = 0; i < 2; i++) {
                submitted.add(queue.submissions().enqueue(name, NewJob.of("late").inLane(lanes.get((pages + i) % 5))).id());
            }
            queue.leases().claim(name, LEASE, 2, "w1").forEach(job -> claimed.add(job.id()));
        }

        assertThat(listed).as("jobs listed").doesNotHaveDuplicates();
        Set<String> stayed = new HashSet<>(submitted);
        stayed.removeAll(claimed);
        assertThat(listed).as("every job that stayed pending").containsAll(stayed);
        assertThat(pages).isGreaterThan(10);
    }

    @Test
    void pagesOfFinishedJobsRunInTheOrderTheyFinishedOverTheShards() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        enqueueLaneless(queue, 20);
        List<String> finished = new ArrayList<>();
        for (ClaimedJob job : queue.leases().claim(name, LEASE, 20, "w1")) {
            queue.leases().complete(job.lease());
            finished.add(job.id());
        }
        List<String> listed = new ArrayList<>();
        Optional<String> cursor = Optional.empty();
        do {
            JobPage page = queue.reads().jobs(name, JobState.COMPLETED, cursor, 3);
            page.jobs().forEach(job -> listed.add(job.id()));
            cursor = page.next();
        } while (cursor.isPresent());

        assertThat(listed).containsExactlyInAnyOrderElementsOf(finished);
        List<Instant> times = listed.stream().map(id -> queue.reads().job(name, id).orElseThrow().finishedAt().orElseThrow()).toList();
        assertThat(times).as("finish times in listing order").isSorted();
        assertThatThrownBy(() -> queue.reads().jobs(name, JobState.COMPLETED, Optional.of("5-3"), 3))
                .isInstanceOf(InvalidRequestException.class).extracting(e -> ((InvalidRequestException) e).field()).isEqualTo("cursor");
    }

    @Test
    void theEventStreamMergesEveryShardAndResumesFromEachShardsPoint() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        List<String> ids = enqueueLaneless(queue, 30);

        List<QueueEvent> seen = new ArrayList<>();
        String resume = "0";
        while (true) {
            EventPage page = queue.reads().events(name, resume, EventFilter.ALL, 4);
            seen.addAll(page.events());
            if (page.lastRead().equals(resume)) {
                break;
            }
            assertThat(page.events()).as("a page in id order").isSortedAccordingTo(Comparator.comparing(e -> new StreamEntryID(e.id())));
            resume = page.lastRead();
        }
        assertThat(seen.stream().filter(e -> e.event().equals("enqueued")).map(QueueEvent::jobId).toList())
                .as("each job's enqueued event, once").containsExactlyInAnyOrderElementsOf(ids);

        List<String> later = enqueueLaneless(queue, 3);
        EventPage fromThere = queue.reads().events(name, resume, EventFilter.ALL, 100);
        assertThat(fromThere.events()).extracting(QueueEvent::jobId).containsExactlyInAnyOrderElementsOf(later);

        String now = queue.reads().lastEventId(name);
        assertThat(queue.reads().events(name, now, EventFilter.ALL, 100).events()).as("nothing after now").isEmpty();
        assertThatThrownBy(() -> queue.reads().events(name, "0,0", EventFilter.ALL, 10))
                .isInstanceOf(InvalidRequestException.class).extracting(e -> ((InvalidRequestException) e).field()).isEqualTo("from");
    }

    @Test
    void theLimitsAreReadOnceFromShardZeroAndEachShardEnforcesItsPart() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        QueueLimits limits = QueueLimits.NONE.withMaxActive(7).withRate(10, Duration.ofSeconds(2)).withLaneMaxActive(2);

        queue.admin().setLimits(name, limits);

        assertThat(queue.reads().limits(name)).isEqualTo(limits);
        assertThat(queue.reads().limitsInForce(name).source()).contains(LimitsSource.API);
        List<String> caps = IntStream.range(0, 3).mapToObj(s -> redis.hget(queue.layout().keys(s).meta(), "max_active")).toList();
        List<String> rates = IntStream.range(0, 3).mapToObj(s -> redis.hget(queue.layout().keys(s).meta(), "rate_max")).toList();
        List<String> laneCaps = IntStream.range(0, 3).mapToObj(s -> redis.hget(queue.layout().keys(s).meta(), "lane_max_active")).toList();
        assertThat(caps).as("each shard's part of the cap").containsExactly("3", "2", "2");
        assertThat(rates).as("each shard's part of the rate").containsExactly("4", "3", "3");
        assertThat(laneCaps).as("a lane cap on every shard as it is").containsExactly("2", "2", "2");

        assertThat(queue.admin().applyConfiguredLimits(name, QueueLimits.NONE.withMaxActive(9))).isTrue();
        assertThat(queue.admin().applyConfiguredLimits(name, QueueLimits.NONE.withMaxActive(9))).as("the same configuration again").isFalse();
        assertThat(queue.reads().limitsInForce(name).source()).contains(LimitsSource.CONFIG);

        queue.admin().setLimits(name, QueueLimits.NONE);
        assertThat(queue.reads().limits(name)).isEqualTo(QueueLimits.NONE);
        assertThat(IntStream.range(0, 3).mapToObj(s -> redis.hget(queue.layout().keys(s).meta(), "max_active"))).containsOnlyNulls();
    }

    @Test
    void aQueueWideLimitBelowTheShardCountIsRefusedNamingTheField() {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();

        assertThatThrownBy(() -> queue.admin().setLimits(name, QueueLimits.NONE.withMaxActive(2)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("3 shards")
                .extracting(e -> ((InvalidRequestException) e).field()).isEqualTo("maxActive");
        assertThatThrownBy(() -> queue.admin().setLimits(name, QueueLimits.NONE.withRate(1, Duration.ofSeconds(1))))
                .isInstanceOf(InvalidRequestException.class).extracting(e -> ((InvalidRequestException) e).field()).isEqualTo("rate.starts");
        assertThat(queue.reads().limits(name)).as("nothing changed").isEqualTo(QueueLimits.NONE);
        assertThatThrownBy(() -> queue.admin().pause("another-queue")).as("settings of another queue through this client")
                .isInstanceOf(InvalidRequestException.class).extracting(e -> ((InvalidRequestException) e).field()).isEqualTo("queue");
    }

    @Test
    void aQueueWideCapOfThreeOverThreeShardsIsNeverExceededByManyClaimers() throws Exception {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        enqueueLaneless(queue, 60);
        queue.admin().setLimits(name, QueueLimits.NONE.withMaxActive(3));
        int claimers = 6;
        ExecutorService pool = Executors.newFixedThreadPool(claimers);
        try {
            // Every claimer at once, none completing: together they hold what the cap lets them.
            CyclicBarrier start = new CyclicBarrier(claimers);
            List<Future<List<ClaimedJob>>> claims = new ArrayList<>();
            for (int c = 0; c < claimers; c++) {
                String worker = "w" + c;
                claims.add(pool.submit(() -> {
                    start.await();
                    return queue.leases().claim(name, LEASE, 5, worker);
                }));
            }
            List<ClaimedJob> held = new ArrayList<>();
            for (Future<List<ClaimedJob>> claim : claims) {
                held.addAll(claim.get(30, TimeUnit.SECONDS));
            }
            assertThat(held).as("jobs held by six claimers at once").hasSize(3);
            assertThat(queue.leases().claim(name, LEASE, 5, "w-late")).as("a claim while the cap is full").isEmpty();
            held.forEach(job -> queue.leases().complete(job.lease()));

            // Then claimers that complete what they take, until the queue is drained.
            AtomicInteger inHand = new AtomicInteger();
            AtomicInteger mostInHand = new AtomicInteger();
            AtomicInteger done = new AtomicInteger(held.size());
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < claimers; c++) {
                String worker = "churn" + c;
                workers.add(pool.submit(() -> {
                    while (done.get() < 60) {
                        List<ClaimedJob> claimed = queue.leases().claim(name, LEASE, 2, worker);
                        mostInHand.accumulateAndGet(inHand.addAndGet(claimed.size()), Math::max);
                        for (ClaimedJob job : claimed) {
                            inHand.decrementAndGet();
                            queue.leases().complete(job.lease());
                            done.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
            assertThat(mostInHand.get()).as("most jobs in claimers' hands at once").isBetween(1, 3);
            assertThat(queue.reads().stats(name).completed()).isEqualTo(60);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aQueueWideRateOverThreeShardsIsNeverExceededInAnyWindow() throws Exception {
        ShardedQueue queue = newQueue();
        String name = queue.layout().queue();
        enqueueLaneless(queue, 30);
        long windowMs = 1000;
        queue.admin().setLimits(name, QueueLimits.NONE.withRate(3, Duration.ofMillis(windowMs)));
        ConcurrentLinkedQueue<String> started = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> claimers = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                String worker = "w" + c;
                claimers.add(pool.submit(() -> {
                    while (started.size() < 8) {
                        for (ClaimedJob job : queue.leases().claim(name, LEASE, 3, worker)) {
                            started.add(job.id());
                            queue.leases().complete(job.lease());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> claimer : claimers) {
                claimer.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<Long> starts = new ArrayList<>(started.stream()
                .map(id -> queue.reads().job(name, id).orElseThrow().claimedAt().orElseThrow().toEpochMilli()).toList());
        Collections.sort(starts);
        for (long end : starts) {
            long inWindow = starts.stream().filter(t -> t > end - windowMs && t <= end).count();
            assertThat(inWindow).as("starts in the window of %d ms ending at %d (all: %s)", windowMs, end, starts).isLessThanOrEqualTo(3);
        }
        assertThat(starts).hasSizeGreaterThanOrEqualTo(8);
    }

    private static List<String> enqueueLaneless(ShardedQueue queue, int jobs) {
        return IntStream.range(0, jobs).mapToObj(i -> queue.submissions().enqueue(queue.layout().queue(), NewJob.of("j" + i)))
                .map(Enqueued::id).toList();
    }

    private static ShardedQueue newQueue() {
        String name = "shmeta-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
        return ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
    }
}
