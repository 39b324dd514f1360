package io.echomq.rar;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.shard.QueueShards;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.runtime.EngineConfig;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * The resource adapter lays an activation's queue out as its configuration says
 * ({@code echomq.queues.<q>.shards}), so an activation's workers claim over every shard of a
 * sharded queue, as the engine's do.
 */
class AdapterShardsTest {

    private final ValkeyCluster cluster = RealServices.valkeyCluster();
    private final RedisClusterClient redis = cluster.newClient();
    private final String queue = "adapter-shards-" + UUID.randomUUID();

    @AfterEach
    void closeClient() {
        redis.close();
    }

    @Test
    void anActivationsQueueConfiguredWithThreeShardsIsClaimedOverAllThree() {
        EngineConfig config = AdapterConfig.read(Map.of("echomq.valkey.cluster-nodes", cluster.seedNodes(),
                "echomq.valkey.password", cluster.password(), "echomq.queues." + queue + ".shards", "3"));

        QueueShards shards = EchoMqResourceAdapter.layOut(redis, QueueClient.connect(redis, config.queueSettings()), config);
        ShardLayout layout = shards.sharded(queue).orElseThrow().layout();
        IntStream.range(0, 12).forEach(i -> shards.enqueue(queue, NewJob.of("{}").inLane("lane-" + i)));
        List<ClaimedJob> claimed = shards.leases(queue).completeAndClaim(queue, List.of(), Duration.ofSeconds(30), 12, "mdb").claimed();

        assertThat(shards.shardsOf(queue)).isEqualTo(3);
        assertThat(claimed).hasSize(12);
        assertThat(claimed.stream().map(job -> layout.shardOfJob(job.id())).collect(Collectors.toSet()))
                .as("shards the activation's worker claimed from").containsExactlyInAnyOrder(0, 1, 2);
    }
}
