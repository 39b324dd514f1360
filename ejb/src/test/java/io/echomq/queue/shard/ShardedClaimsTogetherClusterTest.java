package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Lease;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.Settlement;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.args.ClientPauseMode;

/**
 * A busy worker's claim over the shards of a queue puts every shard's {@code complete-claim} on
 * the wire before it reads any reply ({@code ScriptRunner.runTogether}), on the testkit's Valkey
 * Cluster of three masters: so one claim over three shards waits one round trip, not three, with
 * each call still sent once, and no more connections held so than half of a pool.
 */
class ShardedClaimsTogetherClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Long enough for the paused master below: the claim waits for it on an open connection. */
    private static final int SOCKET_TIMEOUT_MS = 60_000;

    private static final ValkeyCluster cluster = RealServices.valkeyCluster();

    @Test
    void everyShardsClaimRunsWhileTheFirstShardsMasterHasNotAnswered() throws Exception {
        try (RedisClusterClient redis = client(8)) {
            ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
            ShardLayout layout = queue.layout();
            List<String> ids = oneJobOnEachShard(queue);
            int shardZerosMaster = cluster.masterPortOfKey(layout.keys(0).prefix());
            ExecutorService worker = Executors.newSingleThreadExecutor();
            try (Jedis pausing = cluster.connectTo(shardZerosMaster)) {
                // A write paused on shard 0's master holds the first call of the claim (the first
                // claim of a queue's client lists shard 0 first) without an answer.
                pausing.clientPause(SOCKET_TIMEOUT_MS, ClientPauseMode.WRITE);
                Future<CompletedAndClaimed> claim = worker.submit(() -> queue.leases().completeAndClaim(layout.queue(), List.of(),
                        LEASE, 30, "w1"));
                try {
                    awaitActiveOn(layout, List.of(1, 2));
                    assertThat(claim).as("the claim is still waiting for shard 0").isNotDone();
                } finally {
                    pausing.clientUnpause();
                }
                CompletedAndClaimed done = claim.get(30, TimeUnit.SECONDS);
                assertThat(done.claimed()).extracting(ClaimedJob::id).containsExactlyInAnyOrderElementsOf(ids);
            } finally {
                worker.shutdownNow();
            }
        }
    }

    @Test
    void aClaimOverTheShardsRunsOnMastersThatForgotTheScripts() {
        try (RedisClusterClient redis = client(8)) {
            ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 3));
            List<String> ids = oneJobOnEachShard(queue);
            List<Lease> held = queue.leases().completeAndClaim(queue.layout().queue(), List.of(), LEASE, 1, "w1").claimed().stream()
                    .map(ClaimedJob::lease).toList();
            cluster.masterPorts().forEach(port -> {
                try (Jedis master = cluster.connectTo(port)) {
                    master.scriptFlush();
                }
            });

            CompletedAndClaimed turn = queue.leases().completeAndClaim(queue.layout().queue(), held, LEASE, 30, "w1");

            assertThat(turn.settlements()).singleElement().isInstanceOf(Settlement.Completed.class);
            List<String> all = new ArrayList<>(held.stream().map(Lease::jobId).toList());
            turn.claimed().forEach(job -> all.add(job.id()));
            assertThat(all).containsExactlyInAnyOrderElementsOf(ids);
        }
    }

    /**
     * Six shards on three masters put two calls of each claim on each master's pool. With two
     * connections to a master, two claims that each held one and waited for the other would wait
     * forever; calls run together hold at most half of a pool, and the others run one at a time.
     */
    @Test
    @Timeout(60)
    void busyClaimsOfManyThreadsOverMoreShardsThanMastersAllFinishOnASmallPool() throws Exception {
        try (RedisClusterClient redis = client(2)) {
            ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(newQueue(), 6));
            ShardLayout layout = queue.layout();
            List<String> submitted = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                String lane = "lane-" + (i % 24);
                submitted.add(queue.submissions().enqueue(layout.queue(), NewJob.of("{}").inLane(lane)).id());
            }
            ExecutorService workers = Executors.newFixedThreadPool(8);
            try {
                List<CompletableFuture<List<String>>> drained = new ArrayList<>();
                for (int w = 0; w < 8; w++) {
                    String workerId = "w" + w;
                    drained.add(CompletableFuture.supplyAsync(() -> drain(queue, workerId), workers));
                }
                List<String> claimed = new ArrayList<>();
                for (CompletableFuture<List<String>> one : drained) {
                    claimed.addAll(one.get());
                }
                assertThat(claimed).as("every job claimed once").containsExactlyInAnyOrderElementsOf(submitted);
            } finally {
                workers.shutdownNow();
            }
        }
    }

    /** Claims and completes until a claim comes back empty; the ids claimed. */
    private static List<String> drain(ShardedQueue queue, String workerId) {
        List<String> ids = new ArrayList<>();
        List<Lease> finished = List.of();
        while (true) {
            CompletedAndClaimed turn = queue.leases().completeAndClaim(queue.layout().queue(), finished, LEASE, 10, workerId);
            assertThat(turn.settlements()).allSatisfy(s -> assertThat(s).isInstanceOf(Settlement.Completed.class));
            if (turn.claimed().isEmpty()) {
                return ids;
            }
            turn.claimed().forEach(job -> ids.add(job.id()));
            finished = turn.claimed().stream().map(ClaimedJob::lease).toList();
        }
    }

    private static List<String> oneJobOnEachShard(ShardedQueue queue) {
        ShardLayout layout = queue.layout();
        List<String> ids = new ArrayList<>();
        for (int shard = 0; shard < layout.shards(); shard++) {
            ids.add(queue.submissions().enqueue(layout.queue(), NewJob.of("{}").inLane(ShardLanes.firstOn(layout, shard))).id());
        }
        return ids;
    }

    /** Waits until each of {@code shards} holds one active job, read on its master. */
    private static void awaitActiveOn(ShardLayout layout, List<Integer> shards) throws InterruptedException {
        Set<Integer> active = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (active.size() < shards.size() && System.nanoTime() < deadline) {
            for (int shard : shards) {
                QueueKeys keys = layout.keys(shard);
                try (Jedis master = cluster.connectTo(cluster.masterPortOfKey(keys.prefix()))) {
                    if (master.zcard(keys.active()) == 1) {
                        active.add(shard);
                    }
                }
            }
            Thread.sleep(20);
        }
        assertThat(active).as("shards whose job was leased while shard 0 had not answered").containsExactlyInAnyOrderElementsOf(shards);
    }

    /** A client of its own, with {@code poolSize} connections to each master. */
    private static RedisClusterClient client(int poolSize) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(poolSize);
        pool.setMaxIdle(poolSize);
        return RedisClusterClient.builder().nodes(cluster.nodes())
                .clientConfig(DefaultJedisClientConfig.builder().password(cluster.password()).socketTimeoutMillis(SOCKET_TIMEOUT_MS).build())
                .poolConfig(pool).build();
    }

    private static String newQueue() {
        return "shtog-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
    }
}
