package io.echomq.engine;

import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.effect.Migrations;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.outbox.Outbox;
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
 * A fresh database migrated for the effect store, {@code queueName} laid out over three shards,
 * and the engine assembled on them (nothing started); closing stops the engine and its threads.
 */
final class ShardedEngine implements AutoCloseable {

    final PostgresService.Database database;
    final Jdbi jdbi;
    final QueueShards shards;
    final EngineAssembly engine;
    private final ExecutorService loops;
    private final EngineThreads threads;

    ShardedEngine(UnifiedJedis redis, PostgresService postgres, String queueName, WorkerListener workerListener,
            MaintenanceListener maintenanceListener) {
        database = postgres.createDatabase("sharded");
        Migrations.migrate(database.dataSource());
        jdbi = Jdbi.create(database.dataSource());
        shards = QueueShards.connect(redis, QueueClient.connect(redis, QueueSettings.DEFAULT), ReplicaWait.NONE, Map.of(queueName, 3));
        loops = Executors.newCachedThreadPool();
        threads = EngineThreads.from(loops, EngineThreads.daemonThreads("sharded-timers"));
        engine = new EngineAssembly(shards, new EffectStore(jdbi, EffectSettings.DEFAULT), Outbox.NONE, threads, "sharded",
                workerListener, maintenanceListener);
    }

    @Override
    public void close() throws InterruptedException {
        engine.stop(Duration.ofSeconds(5));
        loops.shutdownNow();
        threads.close();
        loops.awaitTermination(5, TimeUnit.SECONDS);
    }
}
