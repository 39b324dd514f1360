package io.echomq.queue.shard;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.Enqueued;
import io.echomq.queue.EventFilter;
import io.echomq.queue.EventIterator;
import io.echomq.queue.EventPage;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.StreamEntryID;

/**
 * The blocking follow of a sharded queue's job events (docs/SHARDING.md, section 8) on the
 * testkit's Valkey Cluster of three masters, one shard on each: one iterator hands out every
 * shard's events as soon as they happen, resumes from a saved point (its own, or the HTTP event
 * stream's) missing and repeating nothing, ends its wait at once and its readers within a blocking
 * read's slice when closed, reads nothing while idle but one blocking read per shard, and ends
 * with an exception naming a shard whose master is down.
 */
@Timeout(180)
class ShardedEventFollowClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    /** Half a blocking read's slice: an event handed out within it was woken for, not polled for. */
    private static final Duration PROMPT = EventIterator.BLOCK_SLICE.dividedBy(2);
    private static final Duration EVENT_WAIT = Duration.ofSeconds(10);
    /** How the queues on the shared cluster are named (the private cluster's queue is named apart). */
    private static final String SHARED_STEM = "shfollow-";

    private static ValkeyCluster cluster;
    private static RedisClusterClient redis;

    @BeforeAll
    static void connect() {
        cluster = RealServices.valkeyCluster();
        redis = cluster.newClient();
    }

    @AfterAll
    static void close() {
        redis.close();
    }

    @Test
    void oneFollowerHandsOutEachShardsEventsAsSoonAsTheyHappen() {
        ShardedQueue queue = newQueue(redis);
        ShardLayout layout = queue.layout();
        String name = layout.queue();
        List<Long> latenciesMs = new ArrayList<>();
        try (EventIterator follower = queue.reads().follow(name, Optional.empty(), EventFilter.ALL)) {
            for (int round = 0; round < 3; round++) {
                for (int shard = 0; shard < layout.shards(); shard++) {
                    awaitAReaderBlockedOn(cluster, layout, shard, 0);
                    long sent = System.nanoTime();
                    Enqueued job = queue.submissions().enqueue(name, NewJob.of("s" + shard).inLane(ShardLanes.firstOn(layout, shard)));
                    QueueEvent event = nextWithin(follower);
                    latenciesMs.add((System.nanoTime() - sent) / 1_000_000);
                    assertThat(event.jobId()).as("the event of the job just submitted on shard %d", shard).isEqualTo(job.id());
                    assertThat(event.event()).isEqualTo("enqueued");
                    assertThat(layout.shardOfJob(event.jobId())).isEqualTo(shard);
                }
            }
        }
        System.out.println("sharded follow: submit-to-event latency ms per event (shards 0,1,2 x3) = " + latenciesMs);
        assertThat(latenciesMs).as("each event handed out within %s of its submission", PROMPT)
                .allSatisfy(ms -> assertThat(ms).isLessThan(PROMPT.toMillis()));
    }

    @Test
    void aFollowerResumedFromItsOwnOrTheHttpStreamsPointMissesAndRepeatsNothingOfAnyShard() {
        ShardedQueue queue = newQueue(redis);
        ShardLayout layout = queue.layout();
        String name = layout.queue();
        String from = queue.reads().lastEventId(name);
        List<String> first = enqueueLaneless(queue, 30);

        List<QueueEvent> read = new ArrayList<>();
        String saved;
        try (EventIterator follower = queue.reads().follow(name, Optional.of(from), EventFilter.ALL)) {
            while (read.size() < 13) {
                read.add(nextWithin(follower));
            }
            saved = follower.lastRead();
        }
        List<String> later = enqueueLaneless(queue, 15);
        List<QueueEvent> resumed = new ArrayList<>();
        try (EventIterator follower = queue.reads().follow(name, Optional.of(saved), EventFilter.ALL)) {
            while (resumed.size() < 32) {
                resumed.add(nextWithin(follower));
            }
            assertThat(follower.poll(Duration.ofMillis(300))).as("nothing beyond the 45 submissions").isEmpty();
        }
        List<QueueEvent> seen = Stream.concat(read.stream(), resumed.stream()).toList();
        System.out.println("sharded follow resume: read=" + read.size() + " saved=" + saved + " resumed=" + resumed.size());
        assertThat(seen).extracting(QueueEvent::jobId).as("every job's event once, over the resume")
                .containsExactlyInAnyOrderElementsOf(Stream.concat(first.stream(), later.stream()).toList());
        assertInOrderWithinEachShard(layout, seen);
        assertThat(queue.reads().events(name, saved, EventFilter.ALL, 1_000).events()).extracting(QueueEvent::id)
                .as("the polled stream from the follower's saved point: the same events")
                .containsExactlyInAnyOrderElementsOf(resumed.stream().map(QueueEvent::id).toList());

        EventPage polled = queue.reads().events(name, from, EventFilter.ALL, 1_000);
        assertThat(polled.events()).hasSize(45);
        String afterSeventh = queue.reads().resumePoints(from, polled).get(6);
        List<QueueEvent> rest = new ArrayList<>();
        try (EventIterator follower = queue.reads().follow(name, Optional.of(afterSeventh), EventFilter.ALL)) {
            while (rest.size() < 38) {
                rest.add(nextWithin(follower));
            }
            assertThat(follower.poll(Duration.ofMillis(300))).as("nothing beyond the 45 submissions").isEmpty();
        }
        assertThat(rest).extracting(QueueEvent::id).as("followed from the HTTP stream's id after its 7th event: exactly the rest")
                .containsExactlyInAnyOrderElementsOf(polled.events().subList(7, 45).stream().map(QueueEvent::id).toList());
    }

    @Test
    void aFilteredFollowerGivesOnlyMatchingEventsAndResumesPastTheOthers() {
        ShardedQueue queue = newQueue(redis);
        ShardLayout layout = queue.layout();
        String name = layout.queue();
        String lane = ShardLanes.firstOn(layout, 2);
        String from = queue.reads().lastEventId(name);
        List<String> inLane = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            enqueueLaneless(queue, 3);
            inLane.add(queue.submissions().enqueue(name, NewJob.of("l" + i).inLane(lane)).id());
        }
        EventFilter laneOnly = EventFilter.of(Optional.empty(), Optional.of(lane), Set.of());
        String saved;
        try (EventIterator follower = queue.reads().follow(name, Optional.of(from), laneOnly)) {
            assertThat(List.of(nextWithin(follower).jobId(), nextWithin(follower).jobId())).isEqualTo(inLane.subList(0, 2));
            saved = follower.lastRead();
        }
        try (EventIterator follower = queue.reads().follow(name, Optional.of(saved), laneOnly)) {
            assertThat(List.of(nextWithin(follower).jobId(), nextWithin(follower).jobId())).isEqualTo(inLane.subList(2, 4));
            assertThat(follower.poll(Duration.ofMillis(300))).isEmpty();
        }
    }

    @Test
    void closingEndsTheWaitAtOnceAndTheReadersWithinASliceWhileIdleReadersOnlyBlock() throws Exception {
        ShardedQueue queue = newQueue(redis);
        ShardLayout layout = queue.layout();
        String name = layout.queue();
        await().atMost(EventIterator.BLOCK_SLICE.plusSeconds(1)).pollInterval(Duration.ofMillis(20))
                .alias("no reader of another test's follower blocked on this cluster").until(() -> readerThreads(SHARED_STEM).isEmpty());
        Map<Integer, Long> blockedBefore = new HashMap<>();
        for (int shard = 0; shard < layout.shards(); shard++) {
            blockedBefore.put(shard, blockedClients(cluster, masterOf(cluster, layout, shard)));
        }
        EventIterator follower = queue.reads().follow(name, Optional.empty(), EventFilter.ALL);
        for (int shard = 0; shard < layout.shards(); shard++) {
            awaitAReaderBlockedOn(cluster, layout, shard, blockedBefore.get(shard));
        }
        assertThat(readerThreads(name + "#")).as("one reader per shard").hasSize(layout.shards());

        Map<Integer, Long> xreadsBefore = xreadCalls(layout);
        assertThat(follower.poll(Duration.ofMillis(1_500))).isEmpty();
        Map<Integer, Long> xreadsAfter = xreadCalls(layout);
        for (int shard = 0; shard < layout.shards(); shard++) {
            assertThat(xreadsAfter.get(shard) - xreadsBefore.get(shard)).as("XREADs on shard %d's master while idle for 1.5 s", shard)
                    .isLessThanOrEqualTo(4);
        }

        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(follower::hasNext);
        follower.close();
        assertThat(waiting.get(PROMPT.toMillis(), MILLISECONDS)).as("closed: no more events, at once").isFalse();
        await().atMost(EventIterator.BLOCK_SLICE.plusSeconds(1)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
            assertThat(readerThreads(name + "#")).as("reader threads still alive").isEmpty();
            for (int shard = 0; shard < layout.shards(); shard++) {
                assertThat(blockedClients(cluster, masterOf(cluster, layout, shard))).as("blocked reads on shard %d's master", shard)
                        .isEqualTo(blockedBefore.get(shard));
            }
        });
    }

    @Test
    void aShardWhoseMasterAndReplicaAreDownEndsTheFollowWithAnExceptionNamingIt() throws Exception {
        try (ValkeyCluster own = ValkeyCluster.start(); RedisClusterClient client = own.newClient()) {
            ShardedQueue queue = newQueue(client, "shdown-");
            ShardLayout layout = queue.layout();
            String name = layout.queue();
            try (EventIterator follower = queue.reads().follow(name, Optional.empty(), EventFilter.ALL)) {
                Enqueued before = queue.submissions().enqueue(name, NewJob.of("before").inLane(ShardLanes.firstOn(layout, 1)));
                QueueEvent beforeEvent = nextWithin(follower);
                assertThat(beforeEvent.jobId()).isEqualTo(before.id());
                awaitAReaderBlockedOn(own, layout, 1, 0);
                int master = masterOf(own, layout, 1);
                own.killHard(replicaOf(own, master));
                own.killHard(master);

                CompletableFuture<Boolean> next = CompletableFuture.supplyAsync(follower::hasNext);
                assertThatThrownBy(() -> next.get(60, SECONDS)).isInstanceOf(ExecutionException.class).cause()
                        .isInstanceOf(QueueUnavailableException.class).hasMessageContaining("shard 1 of queue '" + name + "'");
                assertThatThrownBy(follower::hasNext).as("every later call says so too, rather than look like an end")
                        .isInstanceOf(QueueUnavailableException.class).hasMessageContaining("shard 1");
                assertThat(follower.lastRead().split(",")[1]).as("shard 1 resumes after its last event handed out")
                        .isEqualTo(beforeEvent.id());
            }
        }
    }

    private static QueueEvent nextWithin(EventIterator follower) {
        return follower.poll(EVENT_WAIT).orElseThrow(() -> new AssertionError("no event within " + EVENT_WAIT));
    }

    private static void assertInOrderWithinEachShard(ShardLayout layout, List<QueueEvent> seen) {
        Map<Integer, List<StreamEntryID>> byShard = seen.stream().collect(Collectors.groupingBy(e -> layout.shardOfJob(e.jobId()),
                Collectors.mapping(e -> new StreamEntryID(e.id()), Collectors.toList())));
        assertThat(byShard.keySet()).as("events of every shard").containsExactlyInAnyOrder(0, 1, 2);
        byShard.forEach((shard, ids) -> assertThat(ids).as("shard %d's events in its stream's order", shard).isSorted());
    }

    /** The live reader threads of followers of the queues whose name starts with {@code queue}. */
    private static List<String> readerThreads(String queue) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(thread -> thread.startsWith("echomq-events[" + queue)).toList();
    }

    private static void awaitAReaderBlockedOn(ValkeyCluster on, ShardLayout layout, int shard, long blockedBefore) {
        int master = masterOf(on, layout, shard);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> blockedClients(on, master) > blockedBefore);
    }

    private static int masterOf(ValkeyCluster on, ShardLayout layout, int shard) {
        return on.masterPortOfKey(layout.keys(shard).events());
    }

    private static long blockedClients(ValkeyCluster on, int port) {
        try (Jedis node = on.connectTo(port)) {
            return infoField(node.info("clients"), "blocked_clients:(\\d+)");
        }
    }

    private static Map<Integer, Long> xreadCalls(ShardLayout layout) {
        Map<Integer, Long> calls = new HashMap<>();
        for (int shard = 0; shard < layout.shards(); shard++) {
            try (Jedis node = cluster.connectTo(masterOf(cluster, layout, shard))) {
                calls.put(shard, infoField(node.info("commandstats"), "cmdstat_xread:calls=(\\d+)"));
            }
        }
        return calls;
    }

    private static int replicaOf(ValkeyCluster on, int master) {
        try (Jedis node = on.connectTo(master)) {
            return (int) infoField(node.info("replication"), "slave0:ip=[^,]+,port=(\\d+)");
        }
    }

    private static long infoField(String info, String pattern) {
        Matcher found = Pattern.compile(pattern).matcher(info);
        return found.find() ? Long.parseLong(found.group(1)) : 0;
    }


    private static List<String> enqueueLaneless(ShardedQueue queue, int jobs) {
        return IntStream.range(0, jobs).mapToObj(i -> queue.submissions().enqueue(queue.layout().queue(), NewJob.of("j" + i)))
                .map(Enqueued::id).toList();
    }

    private static ShardedQueue newQueue(RedisClusterClient client) {
        return newQueue(client, SHARED_STEM);
    }

    private static ShardedQueue newQueue(RedisClusterClient client, String stem) {
        String name = stem + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
        return ShardedQueue.connect(client, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
    }
}
