package io.echomq.worker;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.effect.Migrations;
import io.echomq.handler.JobHandler;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.runtime.PostgresPool;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.RedisClient;

/**
 * The real engine wired for one test: a queue client on the run's Valkey, an effect store on a
 * fresh database through the engine's own connection pool, executors of its own, and a queue
 * name no other test uses. Closed after the test; stops whatever it started.
 */
final class Engine implements AutoCloseable {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    /** Room for every runner a test starts, a zombie's transaction and the test's own queries. */
    private static final int POOL_SIZE = 16;

    final String queueName = "proof-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
    final RedisClient redis;
    final QueueClient queue;
    /** Pooled like the engine's: a connection per transaction would make every job slow. */
    private final HikariDataSource pool;
    final Jdbi jdbi;
    final EffectStore effects;
    final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
    final ExecutorService loops = Executors.newCachedThreadPool();
    final RecordingListener events = new RecordingListener();
    private final List<QueueWorker> workers = new ArrayList<>();
    private final List<Maintenance> maintenance = new ArrayList<>();

    Engine(ValkeyService valkey, PostgresService postgres, EffectSettings effectSettings) {
        redis = valkey.newClient();
        queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
        PostgresService.Database database = postgres.createDatabase("proof");
        Migrations.migrate(database.dataSource());
        pool = PostgresPool.open(queueName, database.jdbcUrl(), Optional.ofNullable(database.user()), Optional.ofNullable(database.password()), POOL_SIZE);
        jdbi = Jdbi.create(pool);
        effects = new EffectStore(jdbi, effectSettings);
    }

    Engine(ValkeyService valkey, PostgresService postgres) {
        this(valkey, postgres, EffectSettings.DEFAULT);
    }

    QueueWorker startWorker(String id, JobHandler handler, WorkerSettings settings, FaultInjector faults) {
        QueueWorker worker = new QueueWorker(queueName, handler, queue, effects, settings, id, timers, faults, events);
        workers.add(worker);
        worker.start(loops);
        return worker;
    }

    Maintenance startMaintenance(Duration interval) {
        Maintenance m = new Maintenance(queue, effects, List.of(queueName), Maintenance.Settings.DEFAULT.withInterval(interval));
        maintenance.add(m);
        m.start(timers);
        return m;
    }

    Maintenance maintenanceNotStarted() {
        return new Maintenance(queue, effects, List.of(queueName), Maintenance.Settings.DEFAULT);
    }

    LedgerSummary ledger() {
        return LedgerSummary.of(jdbi, queueName);
    }

    @Override
    public void close() throws InterruptedException {
        maintenance.forEach(Maintenance::stop);
        workers.forEach(w -> w.stop(Duration.ofSeconds(5)));
        loops.shutdownNow();
        timers.shutdownNow();
        loops.awaitTermination(5, TimeUnit.SECONDS);
        redis.close();
        pool.close();
    }
}
