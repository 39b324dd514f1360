package io.echomq.rar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.api.FlowRequest;
import io.echomq.api.Job;
import io.echomq.api.JobRequest;
import io.echomq.api.Submission;
import io.echomq.effect.Migrations;
import io.echomq.outbox.JobRequests;
import io.echomq.outbox.OutboxRelay;
import io.echomq.outbox.OutboxWriter;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.QueueClient;
import io.echomq.queue.shard.QueueShards;
import io.echomq.rar.outbound.OutboundEnqueuer;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.queue.shard.ShardLayouts;
import io.echomq.queue.shard.ShardedQueue;
import io.echomq.runtime.EngineConfig;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.services.ValkeyCluster;
import io.echomq.testkit.faults.FaultyDataSources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * The adapter's outbox relay into a queue its configuration lays out over three shards, on the
 * testkit's 3-master Valkey Cluster: the relay lays the row's queue out at its first row, makes
 * each row's job once on the shard a submission of it would reach, and a row sent again after its
 * relay died finds that one job, also when the row's key is owned by another shard than its lane's.
 */
@WithRealServices
class AdapterOutboxShardsTest {

    private final ValkeyCluster cluster = RealServices.valkeyCluster();
    private final RedisClusterClient redis = cluster.newClient();
    private final String queue = "adapter-outbox-shards-" + UUID.randomUUID();

    @AfterEach
    void closeClient() {
        redis.close();
    }

    @Test
    void theAdaptersRelayMakesEachRowsJobOnceOnItsLanesShardAlsoWhenSentAgainAfterItDied(PostgresService postgres) throws Exception {
        EngineConfig config = AdapterConfig.read(Map.of("echomq.valkey.cluster-nodes", cluster.seedNodes(),
                "echomq.valkey.password", cluster.password(), "echomq.queues." + queue + ".shards", "3"));
        QueueClient client = QueueClient.connect(redis, config.queueSettings());
        QueueShards shards = EchoMqResourceAdapter.layOut(redis, client, config);
        ShardLayout layout = ShardLayout.of(queue, 3);
        DataSource database = postgres.createDatabase("adaptershards").dataSource();
        Migrations.migrate(database);
        String lane = IntStream.range(0, 1_000).mapToObj(i -> "lane-" + i).filter(l -> layout.shardOfLane(l) == 2).findFirst().orElseThrow();
        Job handled = new Job("orders", "41", 1764979200000L, 1, "default", "{}");
        String step = IntStream.range(0, 1_000).mapToObj(i -> "step-" + i)
                .filter(s -> layout.ownerOfKey(handled.followUpKey(s)) != 2).findFirst().orElseThrow();
        // A bean's follow-up (a reserved key owned by another shard than its lane's) and a row written without a key.
        OutboxWriter.insert(database, List.of(JobRequests.followUp(handled, step, JobRequest.of(queue, "{\"followUp\":true}").withLane(lane)),
                JobRequest.of(queue, "{\"plain\":true}").withLane(lane)));

        try (OutboxRelay dying = OutboxRelay.idle("test/" + queue, FaultyDataSources.refusingDeletes(database), shards.outboxDoor(), client.outboxAdmin(),
                Duration.ofMinutes(1), OutboxRelay.RetryPolicy.DEFAULT)) {
            assertThatThrownBy(dying::sweep).hasMessageContaining("DELETE refused");
        }
        try (OutboxRelay next = OutboxRelay.idle("test/" + queue, database, shards.outboxDoor(), client.outboxAdmin(),
                Duration.ofMinutes(1), OutboxRelay.RetryPolicy.DEFAULT)) {
            assertThat(next.sweep().relayed()).isEqualTo(2);
        }

        assertThat(shards.shardsOf(queue)).as("the queue's layout, learnt from its first row").isEqualTo(3);
        long rowsLeft = Jdbi.create(database).withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.outbox").mapTo(Long.class).one());
        assertThat(rowsLeft).as("rows left").isZero();
        assertThat(shards.stats(queue).total()).as("jobs over every shard: one per row").isEqualTo(2);
        List<JobView> onLaneShard = shards.partsOf(queue).get(2).reads().jobs(queue, JobState.PENDING, Optional.empty(), 10).jobs();
        assertThat(onLaneShard).as("jobs on the lane's shard").hasSize(2).allSatisfy(job ->
                assertThat(layout.shardOfJob(job.id())).as("the shard job %s names", job.id()).isEqualTo(2));
        List<String> keys = new ArrayList<>();
        onLaneShard.forEach(job -> keys.add(job.idempotencyKey().orElseThrow()));
        assertThat(keys).anySatisfy(key -> assertThat(key).isEqualTo(handled.followUpKey(step)))
                .anySatisfy(key -> assertThat(key).startsWith(OutboxRelay.RELAY_KEY_PREFIX));
    }

    @Test
    void aConnectionFactorysDirectEnqueueAndFlowGoToTheirLanesShards() {
        EngineConfig config = AdapterConfig.read(Map.of("echomq.valkey.cluster-nodes", cluster.seedNodes(),
                "echomq.valkey.password", cluster.password(), "echomq.queues." + queue + ".shards", "3"));
        QueueClient client = QueueClient.connect(redis, config.queueSettings());
        QueueShards shards = EchoMqResourceAdapter.layOut(redis, client, config);
        ShardLayout layout = ShardLayout.of(queue, 3);
        String plain = "adapter-plain-" + UUID.randomUUID();
        OutboundEnqueuer direct = new OutboundEnqueuer(shards, null, () -> {
            throw new AssertionError("no transaction here: the outbox must not be used");
        });

        List<Submission> made = IntStream.range(0, 6).mapToObj(i -> direct.enqueue(JobRequest.of(queue, "{}").withLane("lane-" + i))).toList();

        for (int i = 0; i < made.size(); i++) {
            int shard = layout.shardOfLane("lane-" + i);
            String id = made.get(i).jobId();
            assertThat(layout.shardOfJob(id)).as("the shard of job %s in lane-%d", id, i).isEqualTo(shard);
            assertThat(shards.partsOf(queue).get(shard).reads().job(queue, id)).as("job %s on its lane's shard", id).isPresent();
        }
        Submission parent = direct.submitFlow(FlowRequest.of(JobRequest.of(plain, "{}"),
                FlowRequest.of(JobRequest.of(queue, "{}").withLane("lane-0")), FlowRequest.of(JobRequest.of(queue, "{}").withLane("lane-1"))));

        List<String> children = shards.children(plain, parent.jobId()).stream().map(child -> child.jobId().orElseThrow()).toList();
        assertThat(children).hasSize(2);
        for (int i = 0; i < 2; i++) {
            assertThat(layout.shardOfJob(children.get(i))).as("the flow's child in lane-%d", i).isEqualTo(layout.shardOfLane("lane-" + i));
        }
        assertThat(shards.stats(queue).total()).as("the six jobs and the flow's two children").isEqualTo(8);
    }

    /**
     * A queue the adapter's configuration does not name, laid out over 3 shards by the engines that
     * serve it: the adapter follows the layout Valkey records and never changes it (before, it took
     * such a queue for one of one shard and, while it was empty, laid it out over one).
     */
    @Test
    void aQueueTheAdapterDoesNotConfigureIsUsedAsItsEnginesLaidItOutAndKeepsItsLayout() {
        EngineConfig config = AdapterConfig.read(Map.of("echomq.valkey.cluster-nodes", cluster.seedNodes(),
                "echomq.valkey.password", cluster.password()));
        ShardLayout layout = ShardedQueue.connect(redis, config.queueSettings(), ShardLayout.of(queue, 3)).layout();
        QueueClient client = QueueClient.connect(redis, config.queueSettings());
        QueueShards shards = EchoMqResourceAdapter.layOut(redis, client, config);
        OutboundEnqueuer direct = new OutboundEnqueuer(shards, null, () -> {
            throw new AssertionError("no transaction here: the outbox must not be used");
        });

        List<Submission> made = IntStream.range(0, 6).mapToObj(i -> direct.enqueue(JobRequest.of(queue, "{}").withLane("lane-" + i))).toList();

        for (int i = 0; i < made.size(); i++) {
            String id = made.get(i).jobId();
            assertThat(layout.shardOfJob(id)).as("the shard of job %s in lane-%d", id, i).isEqualTo(layout.shardOfLane("lane-" + i));
        }
        assertThat(shards.stats(queue).pending()).as("jobs over every shard").isEqualTo(6);
        assertThat(new ShardLayouts(redis, new ScriptRunner(redis, ReplicaWait.NONE)).recordedShards(queue))
                .as("the queue's recorded layout").isEqualTo(3);
        String plain = "adapter-plain-" + UUID.randomUUID();
        assertThat(shards.shardsOf(plain)).as("a queue nobody laid out").isEqualTo(1);
    }
}
