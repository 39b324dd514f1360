package io.echomq.engine;

import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.effect.Migrations;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.outbox.Outbox;
import io.echomq.outbox.OutboxRelay;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.shard.QueueShards;
import io.echomq.testkit.PostgresService;
import io.echomq.worker.WorkerListener;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.UnifiedJedis;

/**
 * A fresh database migrated for the effect store, its queues laid out over their shards (three
 * for one named queue), and the engine assembled on them (nothing started); closing stops the
 * engine, its outbox relay if it has one, and its threads.
 */
final class ShardedEngine implements AutoCloseable {

    final PostgresService.Database database;
    final Jdbi jdbi;
    final QueueShards shards;
    final EngineAssembly engine;
    private final OutboxRelay relay;
    private final ExecutorService loops;
    private final EngineThreads threads;

    ShardedEngine(UnifiedJedis redis, PostgresService postgres, String queueName, WorkerListener workerListener,
            MaintenanceListener maintenanceListener) {
        this(redis, postgres, Map.of(queueName, 3), workerListener, maintenanceListener, false);
    }

    /** With {@code outbox}, handlers may make follow-ups: the engine's outbox is relayed through its queues' layouts, as at start. */
    ShardedEngine(UnifiedJedis redis, PostgresService postgres, Map<String, Integer> shardCounts, WorkerListener workerListener,
            MaintenanceListener maintenanceListener, boolean outbox) {
        database = postgres.createDatabase("sharded");
        Migrations.migrate(database.dataSource());
        jdbi = Jdbi.create(database.dataSource());
        QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT);
        shards = QueueShards.connect(redis, client, ReplicaWait.NONE, shardCounts);
        relay = outbox ? OutboxRelay.start("sharded/" + database.name(), database.dataSource(), shards.outboxDoor(),
                client.outboxAdmin(), Duration.ofMinutes(1)) : null;
        loops = Executors.newCachedThreadPool();
        threads = EngineThreads.from(loops, EngineThreads.daemonThreads("sharded-timers"));
        engine = new EngineAssembly(shards, new EffectStore(jdbi, EffectSettings.DEFAULT),
                relay == null ? Outbox.NONE : Outbox.relayedBy(relay), threads, "sharded", workerListener, maintenanceListener);
    }

    @Override
    public void close() throws InterruptedException {
        engine.stop(Duration.ofSeconds(5));
        if (relay != null) {
            relay.close();
        }
        loops.shutdownNow();
        threads.close();
        loops.awaitTermination(5, TimeUnit.SECONDS);
    }
}
