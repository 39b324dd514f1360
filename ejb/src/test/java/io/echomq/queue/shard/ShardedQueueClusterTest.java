package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Enqueued;
import io.echomq.queue.EventFilter;
import io.echomq.queue.EventIterator;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.Lease;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.Settlement;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

/**
 * A queue of three shards on the testkit's Valkey Cluster of three masters (docs/SHARDING.md): its
 * shards on three masters, each job on its lane's shard under an id that names the shard, workers
 * draining every shard in turn with each lane's order kept, and the shard count fixed while the
 * queue holds jobs.
 */
class ShardedQueueClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static final ValkeyCluster cluster = RealServices.valkeyCluster();
    private static final RedisClusterClient redis = cluster.sharedClient();

    @Test
    void theThreeShardsOfAQueueLiveOnThreeMasters() {
        for (int i = 0; i < 5; i++) {
            ShardLayout layout = ShardLayout.of(newQueue(), 3);

            assertThat(layout.allKeys().stream().map(ShardedQueueClusterTest::masterOf).distinct())
                    .as("masters of the shards of %s", layout.queue()).containsExactlyInAnyOrderElementsOf(cluster.masterPorts());
        }
    }

    @Test
    void eachJobIsStoredOnItsLanesShardUnderAnIdThatNamesIt() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        ShardLayout layout = queue.layout();
        List<Enqueued> submitted = new ArrayList<>();
        Map<String, String> laneOf = new HashMap<>();
        for (int round = 0; round < 5; round++) {
            for (int lane = 0; lane < 12; lane++) {
                Enqueued job = queue.submissions().enqueue(layout.queue(), NewJob.of("p").inLane("lane-" + lane));
                submitted.add(job);
                laneOf.put(job.id(), "lane-" + lane);
            }
        }
        List<Enqueued> laneless = IntStream.range(0, 30).mapToObj(i -> queue.submissions().enqueue(layout.queue(), NewJob.of("x"))).toList();
        submitted.addAll(laneless);

        assertThat(submitted).extracting(Enqueued::id).as("ids are unique over the shards").doesNotHaveDuplicates();
        for (Enqueued job : submitted) {
            int shard = layout.shardOfJob(job.id());
            if (laneOf.containsKey(job.id())) {
                assertThat(shard).as("job %s of %s", job.id(), laneOf.get(job.id())).isEqualTo(layout.shardOfLane(laneOf.get(job.id())));
            }
            for (int other = 0; other < layout.shards(); other++) {
                QueueKeys keys = layout.keys(other);
                try (Jedis master = cluster.connectTo(masterOf(keys))) {
                    assertThat(master.exists(keys.job(job.id()))).as("job %s on shard %d", job.id(), other).isEqualTo(other == shard);
                }
            }
        }
        assertThat(laneless.stream().collect(java.util.stream.Collectors.groupingBy(job -> layout.shardOfJob(job.id()),
                java.util.stream.Collectors.counting()))).as("jobs without a lane, by shard").containsOnly(
                        Map.entry(0, 10L), Map.entry(1, 10L), Map.entry(2, 10L));
    }

    @Test
    void workersDrainEveryShardInTurnKeepingEachLanesOrderAndShare() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        ShardLayout layout = queue.layout();
        List<String> lanes = twoLanesPerShard(layout);
        Map<String, List<String>> submittedByLane = new LinkedHashMap<>();
        for (int round = 0; round < 20; round++) {
            for (String lane : lanes) {
                submittedByLane.computeIfAbsent(lane, l -> new ArrayList<>())
                        .add(queue.submissions().enqueue(layout.queue(), NewJob.of(lane + "/" + round).inLane(lane)).id());
            }
        }

        Map<String, List<String>> claimedByLane = new LinkedHashMap<>();
        List<Integer> firstShardOfTurn = new ArrayList<>();
        List<Lease> finished = List.of();
        int claims = 0;
        Map<String, Integer> claimsAtHalf = null;
        while (true) {
            CompletedAndClaimed turn = queue.leases().completeAndClaim(layout.queue(), finished, LEASE, 4, "w1");
            assertThat(turn.settlements()).allSatisfy(s -> assertThat(s).isInstanceOf(Settlement.Completed.class));
            if (turn.claimed().isEmpty()) {
                break;
            }
            firstShardOfTurn.add(layout.shardOfJob(turn.claimed().get(0).id()));
            for (ClaimedJob job : turn.claimed()) {
                claimedByLane.computeIfAbsent(job.lane(), l -> new ArrayList<>()).add(job.id());
                claims++;
            }
            if (claimsAtHalf == null && claims >= 60) {
                claimsAtHalf = new HashMap<>();
                for (Map.Entry<String, List<String>> lane : claimedByLane.entrySet()) {
                    claimsAtHalf.put(lane.getKey(), lane.getValue().size());
                }
            }
            finished = turn.claimed().stream().map(ClaimedJob::lease).toList();
        }

        assertThat(claimedByLane).as("every job claimed once, each lane in its order").isEqualTo(submittedByLane);
        assertThat(firstShardOfTurn.subList(0, 3)).as("successive turns start at successive shards").containsExactly(0, 1, 2);
        assertThat(claimsAtHalf.values()).as("claims per lane when half the jobs were claimed: %s", claimsAtHalf)
                .hasSize(lanes.size()).allSatisfy(count -> assertThat(count).isBetween(8, 12));
    }

    @Test
    void aSettlementGoesToItsJobsShardAndAStaleOneIsStillRejected() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        ShardLayout layout = queue.layout();
        List<ClaimedJob> claimed = new ArrayList<>();
        for (String lane : twoLanesPerShard(layout)) {
            queue.submissions().enqueue(layout.queue(), NewJob.of("p").inLane(lane));
        }
        claimed.addAll(queue.leases().claim(layout.queue(), LEASE, 6, "w1"));
        assertThat(claimed).extracting(job -> layout.shardOfJob(job.id())).containsOnly(0, 1, 2);

        for (ClaimedJob job : claimed) {
            Lease stale = new Lease(job.lease().queue(), job.id(), job.lease().jobCreatedMs(), job.lease().token() + 1, null);
            assertThat(queue.leases().complete(stale)).as("job %s with a token it never had", job.id()).isNotInstanceOf(Settlement.Completed.class);
            assertThat(queue.leases().complete(job.lease())).as("job %s", job.id()).isInstanceOf(Settlement.Completed.class);
        }
    }

    @Test
    void readsShowOneQueueWhateverShardHoldsEachJob() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        String name = queue.layout().queue();
        List<String> lanes = twoLanesPerShard(queue.layout());
        Map<String, String> laneOf = new HashMap<>();
        for (String lane : lanes) {
            for (int i = 0; i < 3; i++) {
                laneOf.put(queue.submissions().enqueue(name, NewJob.of(lane + i).inLane(lane)).id(), lane);
            }
        }
        List<ClaimedJob> claimed = queue.leases().claim(name, LEASE, 9, "w1");
        claimed.subList(0, 4).forEach(job -> queue.leases().complete(job.lease()));

        io.echomq.queue.QueueStats stats = queue.reads().stats(name);
        assertThat(List.of(stats.pending(), stats.active(), stats.completed(), stats.total())).as("pending, active, completed, total")
                .containsExactly(9L, 5L, 4L, 18L);
        Set<String> claimedIds = claimed.stream().map(ClaimedJob::id).collect(java.util.stream.Collectors.toSet());
        long lanesLeft = laneOf.entrySet().stream().filter(job -> !claimedIds.contains(job.getKey())).map(Map.Entry::getValue).distinct().count();
        assertThat(stats.lanesWithWork()).as("lanes with pending jobs, over the shards").isEqualTo((int) lanesLeft);
        laneOf.forEach((id, lane) -> assertThat(queue.reads().job(name, id)).as("job %s", id).hasValueSatisfying(view -> {
            assertThat(view.lane()).isEqualTo(lane);
            assertThat(queue.reads().history(name, id)).as("history of job %s", id).isNotEmpty();
        }));
        List<io.echomq.queue.JobIdentity> asked = claimed.stream().map(job -> job.lease().identity()).toList();
        Map<String, io.echomq.queue.JobState> states = queue.reads().statesOf(name, asked);
        assertThat(states).hasSize(9);
        claimed.subList(0, 4).forEach(job -> assertThat(states.get(job.id())).isEqualTo(io.echomq.queue.JobState.COMPLETED));
        claimed.subList(4, 9).forEach(job -> assertThat(states.get(job.id())).isEqualTo(io.echomq.queue.JobState.ACTIVE));
    }

    @Test
    void operatorsAndMaintenanceReachEveryShard() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        String name = queue.layout().queue();
        List<String> lanes = twoLanesPerShard(queue.layout()).subList(0, 3);
        List<String> ids = new ArrayList<>();
        for (String lane : lanes) {
            ids.add(queue.submissions().enqueue(name, NewJob.of("a").inLane(lane)).id());
            ids.add(queue.submissions().enqueue(name, NewJob.of("b").inLane(lane)).id());
        }

        assertThat(queue.admin().pause(name)).isTrue();
        assertThat(queue.leases().claim(name, LEASE, 6, "w1")).as("no shard claims while the queue is paused").isEmpty();
        assertThat(queue.reads().stats(name).paused()).isTrue();
        assertThat(queue.admin().resume(name)).isFalse();

        for (int i = 1; i < ids.size(); i += 2) {
            assertThat(queue.admin().cancel(name, ids.get(i))).as("cancel job %s", ids.get(i)).isInstanceOf(io.echomq.queue.ManualTransition.Moved.class);
            assertThat(queue.reads().job(name, ids.get(i)).orElseThrow().state()).isEqualTo(io.echomq.queue.JobState.CANCELLED);
        }
        List<ClaimedJob> lapsing = queue.leases().claim(name, Duration.ofMillis(50), 6, "w1");
        assertThat(lapsing).extracting(job -> queue.layout().shardOfJob(job.id())).containsExactlyInAnyOrder(0, 1, 2);

        List<String> reaped = new ArrayList<>();
        org.awaitility.Awaitility.await("every shard's expired lease reaped").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    reaped.addAll(queue.admin().reap(name, 10).jobIds());
                    return reaped.size() == 3;
                });
        assertThat(reaped).containsExactlyInAnyOrderElementsOf(lapsing.stream().map(ClaimedJob::id).toList());
        assertThat(queue.reads().stats(name).pending()).isEqualTo(3);
        assertThat(queue.admin().trim(name, new io.echomq.queue.Retention(0, Duration.ZERO, 0, Duration.ZERO, 100)).cancelled())
                .as("cancelled jobs trimmed on every shard").isEqualTo(3);
    }

    @Test
    void aBatchOverSeveralShardsNeedsIdempotencyKeys() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        ShardLayout layout = queue.layout();
        List<String> lanes = twoLanesPerShard(layout);
        List<NewJob> unkeyed = lanes.stream().map(lane -> NewJob.of("p").inLane(lane)).toList();

        assertThatThrownBy(() -> queue.submissions().enqueueBatch(layout.queue(), unkeyed))
                .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("jobs[1].lane").hasMessageContaining("idempotency key");
        List<NewJob> oneShard = List.of(NewJob.of("a").inLane(lanes.get(0)), NewJob.of("b"), NewJob.of("c").inLane(lanes.get(3)));
        assertThat(queue.submissions().enqueueBatch(layout.queue(), oneShard)).extracting(job -> layout.shardOfJob(job.id()))
                .containsOnly(layout.shardOfLane(lanes.get(0)));
    }

    /**
     * A client that does not know a queue's shards (an engine or program whose configuration does
     * not name them) would mint ids on shard 0 that name other shards: jobs that settlements and
     * operators never find. Shard 0 refuses it, and nothing is made.
     */
    @Test
    void aClientThatDoesNotKnowTheQueuesShardsMakesNothingAndIsToldWhichSettingToGive() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        String name = queue.layout().queue();
        QueueClient unaware = QueueClient.connect(redis, QueueSettings.DEFAULT);

        assertThatThrownBy(() -> unaware.submissions().enqueue(name, NewJob.of("one")))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + name + ".shards: queue '" + name + "' is laid out over 3 shards");
        assertThatThrownBy(() -> unaware.submissions().enqueueBatch(name, List.of(NewJob.of("a"), NewJob.of("b"))))
                .isInstanceOf(ShardCountRefusedException.class).hasMessageContaining("echomq.queues." + name + ".shards=3");
        assertThatThrownBy(() -> unaware.flows().submit(NewFlow.of(name, NewJob.of("parent"), NewFlow.of(newQueue(), NewJob.of("child")))))
                .isInstanceOf(ShardCountRefusedException.class).hasMessageContaining("is laid out over 3 shards");

        assertThat(queue.reads().stats(name).total()).as("jobs made").isZero();
        assertThat(redis.get(queue.layout().keys(0).seq())).as("shard 0's ids minted").isNull();
        assertThat(queue.layout().shardOfJob(queue.submissions().enqueue(name, NewJob.of("through its shards")).id()))
                .as("a job sent through the queue's shards").isBetween(0, 2);
    }

    /** One stream of a sharded queue is one shard's events: a client that reads one is refused rather than shown a third of them. */
    @Test
    void aClientThatDoesNotKnowTheQueuesShardsIsRefusedItsEventsRatherThanShownShardZerosAlone() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        String name = queue.layout().queue();
        QueueClient unaware = QueueClient.connect(redis, QueueSettings.DEFAULT);

        assertThatThrownBy(() -> unaware.reads().follow(name, Optional.empty(), EventFilter.ALL))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("queue '" + name + "' is laid out over 3 shards").hasMessageContaining("QueueShards");
        assertThatThrownBy(() -> unaware.reads().events(name, "0", EventFilter.ALL, 10))
                .isInstanceOf(ShardCountRefusedException.class).hasMessageContaining("is laid out over 3 shards");
        try (EventIterator followed = queue.reads().follow(name, Optional.of("0"), EventFilter.ALL)) {
            assertThat(followed).as("the queue followed over its shards").isNotNull();
        }
    }

    @Test
    void aQueueHoldingJobsRefusesAnotherShardCountNamingTheSetting() {
        String name = newQueue();
        QueueClient unsharded = QueueClient.connect(redis, QueueSettings.DEFAULT);
        unsharded.submissions().enqueue(name, NewJob.of("waiting"));

        assertThatThrownBy(() -> ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3)))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + name + ".shards: ")
                .hasMessageContaining("holds 1 jobs minted for 1 shard");
        assertThat(redis.hgetAll(new QueueKeys(name).meta())).as("nothing recorded").doesNotContainKeys("id_stride", "id_offset");
        assertThat(unsharded.submissions().enqueue(name, NewJob.of("next")).id()).as("ids minted as before").isEqualTo("2");
    }

    /**
     * Sharding costs a queue of one shard one command: an enqueue issues the commands it issued
     * before sharding existed, on the queue's master, plus one read of the meta hash that makes sure
     * the queue was not laid out over shards behind this client's back (includes/mint_id). The
     * other HGET is the event stream's cap, as before.
     */
    @Test
    void anUnshardedEnqueueIssuesTheCommandsItIssuedBeforeShardingAndOneLayoutRead() {
        String name = newQueue();
        QueueClient unsharded = QueueClient.connect(redis, QueueSettings.DEFAULT);
        unsharded.submissions().enqueue(name, NewJob.of("first"));
        try (Jedis master = cluster.connectTo(masterOf(new QueueKeys(name)))) {
            master.configResetStat();

            unsharded.submissions().enqueue(name, NewJob.of("second").inLane("l"));

            assertThat(dataCommandCalls(master)).as("commands of one enqueue").isEqualTo(Map.of(
                    "evalsha", 1L, "time", 1L, "hget", 2L, "zscore", 1L, "zcard", 1L, "incr", 1L, "hset", 2L, "zadd", 1L,
                    "rpush", 2L, "xadd", 1L));
        }
    }

    /**
     * Four lanes on one shard and one on each other: while every lane has work, each lane's claims
     * stay within one turn's budget of every other's (docs/SHARDING.md, 9.1), however few lanes a
     * shard holds.
     */
    @Test
    void lanesSpreadUnevenlyOverTheShardsGetEqualShares() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
        ShardLayout layout = queue.layout();
        List<String> lanes = lanesSpread(layout, List.of(4, 1, 1));
        for (int round = 0; round < 40; round++) {
            for (String lane : lanes) {
                queue.submissions().enqueue(layout.queue(), NewJob.of(lane + "/" + round).inLane(lane));
            }
        }
        int budget = 3;

        Map<String, Integer> claimsOfLane = new HashMap<>();
        lanes.forEach(lane -> claimsOfLane.put(lane, 0));
        for (int turn = 0; turn < 30; turn++) {
            for (ClaimedJob job : queue.leases().claim(layout.queue(), LEASE, budget, "w1")) {
                claimsOfLane.merge(job.lane(), 1, Integer::sum);
            }
        }

        assertThat(claimsOfLane.values().stream().mapToInt(Integer::intValue).sum()).as("claims").isEqualTo(90);
        int fewest = claimsOfLane.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
        assertThat(claimsOfLane.values()).as("claims per lane, every lane having work throughout: %s", claimsOfLane)
                .allSatisfy(count -> assertThat(count).isBetween(fewest, fewest + budget));
    }

    @Test
    void aQueueOfOneShardMintsTodaysIdsAndRecordsNothing() {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 1));
        String name = queue.layout().queue();

        List<String> ids = IntStream.range(0, 3).mapToObj(i -> queue.submissions().enqueue(name, NewJob.of("p").inLane("l" + i)).id()).toList();

        assertThat(ids).containsExactly("1", "2", "3");
        assertThat(redis.hgetAll(new QueueKeys(name).meta())).doesNotContainKeys("id_stride", "id_offset");
    }

    @Test
    void anEmptyQueueMayChangeItsShardCount() {
        String name = newQueue();
        ShardedQueue three = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
        Lease lease = three.leases().claim(name, LEASE, 1, "w1").stream().findFirst().map(ClaimedJob::lease).orElse(null);
        assertThat(lease).as("an empty queue").isNull();

        ShardedQueue two = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 2));
        List<Enqueued> jobs = IntStream.range(0, 4).mapToObj(i -> two.submissions().enqueue(name, NewJob.of("p"))).toList();

        assertThat(jobs).extracting(job -> Long.parseLong(job.id()) % 2).containsExactly(0L, 1L, 0L, 1L);
        QueueKeys retired = ShardLayout.of(name, 3).keys(2);
        assertThat(redis.hgetAll(retired.meta())).as("shard 2 of 3 retired").doesNotContainKeys("id_stride", "id_offset");
        assertThatThrownBy(() -> ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3)))
                .isInstanceOf(ShardCountRefusedException.class).hasMessageContaining("minted for 2 shards");
    }

    /** The lanes of {@code count} shards' worth: {@code perShard.get(s)} lanes on shard s. */
    private static List<String> lanesSpread(ShardLayout layout, List<Integer> perShard) {
        Map<Integer, List<String>> byShard = new HashMap<>();
        int wanted = perShard.stream().mapToInt(Integer::intValue).sum();
        for (int i = 0; byShard.values().stream().mapToInt(List::size).sum() < wanted; i++) {
            String lane = "lane-" + i;
            int shard = layout.shardOfLane(lane);
            List<String> of = byShard.computeIfAbsent(shard, s -> new ArrayList<>());
            if (of.size() < perShard.get(shard)) {
                of.add(lane);
            }
        }
        return byShard.values().stream().flatMap(List::stream).toList();
    }

    /** Six lanes, two on each shard, so that a fair claim gives each the same share: shards 0, 1, 2, then 0, 1, 2 again. */
    private static List<String> twoLanesPerShard(ShardLayout layout) {
        Map<Integer, List<String>> byShard = new HashMap<>();
        for (int i = 0; byShard.values().stream().mapToInt(List::size).sum() < 6; i++) {
            String lane = "lane-" + i;
            List<String> of = byShard.computeIfAbsent(layout.shardOfLane(lane), s -> new ArrayList<>());
            if (of.size() < 2) {
                of.add(lane);
            }
        }
        return IntStream.range(0, 2).boxed().flatMap(k -> byShard.keySet().stream().sorted().map(s -> byShard.get(s).get(k))).toList();
    }

    /** Calls per command since the last reset, without the commands that clients and this test send to manage the connection. */
    private static Map<String, Long> dataCommandCalls(Jedis master) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : master.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                long count = Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
                if (count > 0 && !Set.of("info", "config|resetstat", "cluster|slots", "cluster|shards", "cluster|nodes", "ping", "hello", "client|setinfo",
                        "script|load", "command|docs", "command").contains(command)) {
                    calls.put(command, count);
                }
            }
        }
        return calls;
    }

    private static int masterOf(QueueKeys keys) {
        return cluster.masterPortOfKey(keys.prefix());
    }

    private static String newQueue() {
        return "shq-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
    }
}
