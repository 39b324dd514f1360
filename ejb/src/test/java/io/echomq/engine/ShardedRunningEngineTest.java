package io.echomq.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.queue.limits.LimitsInForce;
import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleView;
import io.echomq.queue.shard.ShardCountRefusedException;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.queue.shard.ShardedQueue;
import io.echomq.runtime.ConfigReader;
import io.echomq.runtime.ConfigurationException;
import io.echomq.runtime.EngineConfig;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.services.ValkeyCluster;
import io.echomq.tracing.JobTelemetry;
import io.echomq.worker.WorkerListener;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * {@code echomq.queues.<q>.shards} as every runtime reads it, through {@link RunningEngine}: the
 * configured count lays the queue out at start, and a count that cannot apply refuses the start.
 */
@WithRealServices
class ShardedRunningEngineTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static final ValkeyCluster cluster = RealServices.valkeyCluster();
    private static final RedisClusterClient redis = cluster.sharedClient();

    @Test
    void aQueueConfiguredWithThreeShardsIsWorkedOverAllThree(PostgresService postgres) {
        String queueName = newQueue();
        PostgresService.Database database = postgres.createDatabase("shardedengine");
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(queueName, 3));
        try (RunningEngine engine = start(configOf(database, Map.of("echomq.queues." + queueName + ".shards", "3")), queueName)) {
            for (int i = 0; i < 60; i++) {
                queue.submissions().enqueue(queueName, NewJob.of("{\"account\":\"a" + i + "\",\"amountCents\":1}").inLane("lane-" + i % 12));
            }

            await("every job completed").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                QueueStats stats = queue.reads().stats(queueName);
                assertThat(stats.completed()).as("%s", stats).isEqualTo(60);
            });
            assertThat(LedgerSummary.of(Jdbi.create(database.dataSource()), queueName))
                    .extracting(LedgerSummary::distinctJobs, LedgerSummary::duplicates).containsExactly(60L, 0L);
        }
    }

    @Test
    void aStartWithAnotherShardCountWhileTheQueueHoldsJobsIsRefusedNamingTheKey(PostgresService postgres) {
        String queueName = newQueue();
        QueueClient.connect(redis, QueueSettings.DEFAULT).submissions().enqueue(queueName, NewJob.of("{}"));
        EngineConfig threeShards = configOf(postgres.createDatabase("shardedengine"), Map.of("echomq.queues." + queueName + ".shards", "3"));

        assertThatThrownBy(() -> start(threeShards, queueName).close())
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + queueName + ".shards: queue '" + queueName + "' cannot have 3 shards now: "
                        + "its shard 0 holds 1 jobs minted for 1 shard");
        assertThat(QueueClient.connect(redis, QueueSettings.DEFAULT).reads().stats(queueName).pending())
                .as("the job left where it was").isEqualTo(1);
    }

    @Test
    void aScheduleConfiguredOnAShardedQueueStartsAndFiresOnItsLanesShardEachJobAppliedOnce(PostgresService postgres) {
        String queueName = newQueue();
        PostgresService.Database database = postgres.createDatabase("shardedengine");
        ShardLayout layout = ShardLayout.of(queueName, 3);
        String lane = java.util.stream.IntStream.range(0, 1_000).mapToObj(i -> "lane-" + i).filter(l -> layout.shardOfLane(l) == 2)
                .findFirst().orElseThrow();
        EngineConfig config = configOf(database, Map.of("echomq.queues." + queueName + ".shards", "3",
                "echomq.maintenance.interval-ms", "50", "echomq.schedules", "charge",
                "echomq.schedules.charge.queue", queueName, "echomq.schedules.charge.interval-ms", "100",
                "echomq.schedules.charge.lane", lane, "echomq.schedules.charge.payload", "{\"account\":\"s\",\"amountCents\":1}"));

        try (RunningEngine engine = start(config, queueName)) {
            assertThat(redis.exists(layout.keys(2).schedule("charge"))).as("the schedule on its lane's shard").isTrue();
            await("the schedule's jobs applied").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
                    .until(() -> engine.shards().stats(queueName).completed() >= 3);
            List<String> made = redis.hvals(layout.keys(2).idempotency());
            assertThat(made).as("jobs the schedule made, on shard 2").hasSizeGreaterThanOrEqualTo(3)
                    .allSatisfy(id -> assertThat(layout.shardOfJob(id)).isEqualTo(2));
            assertThat(engine.shards().partsOf(queueName).get(0).reads().stats(queueName).total()).as("jobs on shard 0").isZero();
        }
        LedgerSummary ledger = LedgerSummary.of(Jdbi.create(database.dataSource()), queueName);
        assertThat(ledger.distinctJobs()).as("jobs charged").isGreaterThanOrEqualTo(3);
        assertThat(ledger.duplicates()).as("jobs charged twice").isZero();
    }

    @Test
    void aConfiguredScheduleWhoseLaneIsNowOnAnotherShardIsMovedThereAtStartStillPaused(PostgresService postgres) {
        String queueName = newQueue();
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(queueName, 3));
        List<String> lanes = java.util.stream.IntStream.range(0, 1_000).mapToObj(i -> "lane-" + i).toList();
        String laneOn1 = lanes.stream().filter(l -> queue.layout().shardOfLane(l) == 1).findFirst().orElseThrow();
        String laneOn2 = lanes.stream().filter(l -> queue.layout().shardOfLane(l) == 2).findFirst().orElseThrow();
        queue.schedules().put(Schedule.every(queueName, "charge", Duration.ofHours(1), "{}").inLane(laneOn1), "api");
        queue.schedules().pause(queueName, "charge");
        EngineConfig config = configOf(postgres.createDatabase("shardedengine"), Map.of("echomq.queues." + queueName + ".shards", "3",
                "echomq.schedules", "charge", "echomq.schedules.charge.queue", queueName,
                "echomq.schedules.charge.interval-ms", "3600000", "echomq.schedules.charge.lane", laneOn2));

        start(config, queueName).close();

        ScheduleView moved = queue.schedules().get(queueName, "charge").orElseThrow();
        assertThat(moved.definition().lane()).as("the configured lane").isEqualTo(laneOn2);
        assertThat(moved.paused()).as("paused as it was").isTrue();
        assertThat(redis.hexists(queue.layout().keys(2).schedule("charge"), "version")).as("on the new lane's shard").isTrue();
        assertThat(redis.hexists(queue.layout().keys(1).schedule("charge"), "version")).as("none left on the old one").isFalse();
    }

    @Test
    void configuredLimitsOfAShardedQueueAreItsWholeLimitsWithAPartOnEachShard(PostgresService postgres) {
        String queueName = newQueue();
        EngineConfig config = configOf(postgres.createDatabase("shardedengine"), Map.of("echomq.queues." + queueName + ".shards", "3",
                "echomq.queues." + queueName + ".max-active", "7"));

        try (RunningEngine engine = start(config, queueName)) {
            LimitsInForce limits = engine.shards().limitsInForce(queueName);
            assertThat(limits.limits().maxActive()).contains(7);
            assertThat(limits.source()).contains(LimitsSource.CONFIG);
            assertThat(engine.shards().partsOf(queueName).stream().map(shard -> shard.reads().limits(queueName).maxActive().orElseThrow()))
                    .as("each shard's part").containsExactly(3, 2, 2);
        }
    }

    @Test
    void aConfiguredCapBelowTheShardCountRefusesTheStartNamingItsKey(PostgresService postgres) {
        String queueName = newQueue();
        EngineConfig config = configOf(postgres.createDatabase("shardedengine"), Map.of("echomq.queues." + queueName + ".shards", "3",
                "echomq.queues." + queueName + ".max-active", "2"));

        assertThatThrownBy(() -> start(config, queueName).close())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("echomq.queues." + queueName + ".max-active")
                .hasMessageContaining("is 2, below the queue's 3 shards");
    }

    @Test
    void aQueueOfOneShardWhoseCapIsBelowTheNewShardCountRefusesTheStartNamingTheShardsKey(PostgresService postgres) {
        String queueName = newQueue();
        QueueClient unsharded = QueueClient.connect(redis, QueueSettings.DEFAULT);
        unsharded.admin().setLimits(queueName, QueueLimits.NONE.withMaxActive(2));
        EngineConfig threeShards = configOf(postgres.createDatabase("shardedengine"), Map.of("echomq.queues." + queueName + ".shards", "3"));

        assertThatThrownBy(() -> start(threeShards, queueName).close())
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + queueName + ".shards: queue '" + queueName + "' cannot have 3 shards while its "
                        + "queue-wide cap (maxActive) is 2");
        assertThat(unsharded.reads().limits(queueName).maxActive()).as("the cap the queue had").contains(2);
        try (RunningEngine oneShard = start(configOf(postgres.createDatabase("shardedengine"), Map.of()), queueName)) {
            assertThat(oneShard.shards().limitsInForce(queueName).limits().maxActive()).as("started again with one shard").contains(2);
        }
    }

    private static RunningEngine start(EngineConfig config, String queueName) {
        LedgerChargeHandler handler = new LedgerChargeHandler();
        return RunningEngine.start(config, List.of(new HandlerBinding(queueName, handler, handler.getClass())),
                EngineThreads.from(EngineThreads.daemonThreads("sharded-engine")), "sharded-engine", WorkerListener.NONE,
                MaintenanceListener.NONE, JobTelemetry.OFF);
    }

    private static EngineConfig configOf(PostgresService.Database database, Map<String, String> more) {
        Map<String, String> settings = new HashMap<>(Map.of("echomq.valkey.cluster-nodes", cluster.seedNodes(),
                "echomq.valkey.password", cluster.password(), "echomq.jdbc.url", database.jdbcUrl(),
                "echomq.jdbc.user", database.user(), "echomq.jdbc.pool-size", "8"));
        if (database.password() != null) {
            settings.put("echomq.jdbc.password", database.password());
        }
        settings.putAll(more);
        return new EngineConfig(ConfigReader.environment(settings));
    }

    private static String newQueue() {
        return "shrun-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
    }
}
