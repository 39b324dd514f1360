package io.echomq.worker;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.Migrations;
import io.echomq.engine.EngineAssembly;
import io.echomq.engine.EngineThreads;
import io.echomq.maintenance.Maintenance;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.outbox.Outbox;
import io.echomq.outbox.OutboxRelay;
import io.echomq.handler.JobHandler;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.runtime.PostgresPool;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.tracing.JobTelemetry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.RedisClient;

/**
 * The real engine wired for one test: a queue client on the run's Valkey, an effect store on a
 * fresh database through the engine's own connection pool, executors of its own, and a queue
 * name no other test uses. Closed after the test; stops whatever it started.
 */
public final class Engine implements AutoCloseable {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    /** Room for every runner a test starts, a zombie's transaction and the test's own queries. */
    private static final int POOL_SIZE = 16;

    public final String queueName = "proof-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
    public final RedisClient redis;
    public final QueueClient queue;
    /** Pooled like the engine's: a connection per transaction would make every job slow. */
    private final HikariDataSource pool;
    public final Jdbi jdbi;
    public final EffectStore effects;
    public final ExecutorService loops = Executors.newCachedThreadPool();
    public final EngineThreads threads = EngineThreads.from(loops, EngineThreads.daemonThreads("proof-timers"));
    public final RecordingListener events = new RecordingListener();
    /** The engine's own assembly: the workers and maintenance a test starts are the ones the WAR starts. */
    public final EngineAssembly assembly;
    /** The relay of the engine's outbox, where handlers' follow-ups go; null unless the test asked for one ({@link #withOutbox}). */
    public final OutboxRelay relay;

    public Engine(ValkeyService valkey, PostgresService postgres, EffectSettings effectSettings) {
        this(valkey, postgres, effectSettings, null, JobTelemetry.OFF);
    }

    /**
     * An engine whose handlers may make follow-up jobs: its outbox is relayed as the WAR's is,
     * sweeping every {@code pollInterval} and whenever an effect transaction that wrote rows commits.
     */
    public static Engine withOutbox(ValkeyService valkey, PostgresService postgres, Duration pollInterval) {
        return new Engine(valkey, postgres, EffectSettings.DEFAULT, pollInterval, JobTelemetry.OFF);
    }

    /** An engine whose submissions and deliveries are traced and metered by {@code telemetry}. */
    public Engine(ValkeyService valkey, PostgresService postgres, JobTelemetry telemetry) {
        this(valkey, postgres, EffectSettings.DEFAULT, null, telemetry);
    }

    private Engine(ValkeyService valkey, PostgresService postgres, EffectSettings effectSettings, Duration outboxPoll,
            JobTelemetry telemetry) {
        redis = valkey.newClient();
        queue = QueueClient.connect(redis, QueueSettings.DEFAULT, ReplicaWait.NONE, telemetry);
        PostgresService.Database database = postgres.createDatabase("proof");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        pool = PostgresPool.open(queueName, database.jdbcUrl(), Optional.ofNullable(database.user()), Optional.ofNullable(database.password()), POOL_SIZE);
        jdbi = Jdbi.create(pool);
        effects = new EffectStore(jdbi, effectSettings);
        relay = outboxPoll == null ? null
                : OutboxRelay.start("proof/" + queueName, pool, queue.submissions().outboxDoor(), queue.outboxAdmin(), outboxPoll);
        Outbox outbox = relay == null ? Outbox.NONE : Outbox.relayedBy(relay);
        assembly = new EngineAssembly(queue, effects, outbox, threads, "proof", events, MaintenanceListener.NONE);
    }

    public Engine(ValkeyService valkey, PostgresService postgres) {
        this(valkey, postgres, EffectSettings.DEFAULT);
    }

    public QueueWorker startWorker(String id, JobHandler handler, WorkerSettings settings, FaultInjector faults) {
        return assembly.startWorker(queueName, handler, settings, id, faults);
    }

    public Maintenance startMaintenance(Duration interval) {
        return assembly.startMaintenance(List.of(queueName), Maintenance.Settings.DEFAULT.withInterval(interval));
    }

    public Maintenance maintenanceNotStarted() {
        return assembly.maintenance(List.of(queueName), Maintenance.Settings.DEFAULT);
    }

    /** The engine's connection pool, for a test that puts a data source of its own in front of it. */
    public javax.sql.DataSource pool() {
        return pool;
    }

    public LedgerSummary ledger() {
        return LedgerSummary.of(jdbi, queueName);
    }

    @Override
    public void close() throws InterruptedException {
        assembly.stop(Duration.ofSeconds(5));
        if (relay != null) {
            relay.close();
        }
        loops.shutdownNow();
        threads.close();
        loops.awaitTermination(5, TimeUnit.SECONDS);
        redis.close();
        pool.close();
    }
}
