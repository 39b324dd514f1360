package io.echomq.web.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.shard.QueueShards;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/** A queue of three shards on the 3-master cluster scrapes as one queue: its jobs of every shard, paused on every shard. */
class ShardedQueueGaugesTest {

    private final ValkeyCluster cluster = RealServices.valkeyCluster();
    private final RedisClusterClient redis = cluster.newClient();
    private final String queue = "sharded-gauges-" + UUID.randomUUID();

    @AfterEach
    void closeClient() {
        redis.close();
    }

    @Test
    void aShardedQueuesJobsOnEveryShardAndItsPauseAreTheGaugesOfOneQueue() {
        QueueShards shards = QueueShards.connect(redis, QueueClient.connect(redis, QueueSettings.DEFAULT), ReplicaWait.NONE,
                Map.of(queue, 3));
        ShardLayout layout = shards.sharded(queue).orElseThrow().layout();
        IntStream.range(0, 12).forEach(i -> shards.enqueue(queue, NewJob.of("{}").inLane("lane-" + i)));
        shards.enqueue(queue, NewJob.of("later").inLane("lane-0").delayedBy(Duration.ofHours(1)));
        shards.leases(queue).completeAndClaim(queue, java.util.List.of(), Duration.ofSeconds(30), 2, "worker-a");
        shards.pause(queue);
        QueueMetrics metrics = new QueueMetrics();

        new QueueGauges(metrics, null, Clock.fixed(Instant.now().plusSeconds(60), ZoneOffset.UTC)).read(shards, queue);

        assertThat(IntStream.range(0, 12).map(i -> layout.shardOfLane("lane-" + i)).distinct().count())
                .as("shards holding the lanes").isEqualTo(3);
        assertThat(metrics.scrape())
                .contains("echomq_queue_jobs{queue=\"" + queue + "\",state=\"pending\"} 10.0")
                .contains("echomq_queue_jobs{queue=\"" + queue + "\",state=\"active\"} 2.0")
                .contains("echomq_queue_jobs{queue=\"" + queue + "\",state=\"delayed\"} 1.0")
                .contains("echomq_queue_paused{queue=\"" + queue + "\"} 1.0");
        assertThat(shards.partsOf(queue)).allSatisfy(shard -> assertThat(shard.reads().stats(queue).paused()).isTrue());
    }
}
