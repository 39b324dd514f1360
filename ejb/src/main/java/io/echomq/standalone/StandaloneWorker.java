package io.echomq.standalone;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.effect.Migrations;
import io.echomq.handler.JobHandler;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.runtime.ConfigReader;
import io.echomq.runtime.ConfigurationException;
import io.echomq.runtime.EngineConfig;
import io.echomq.runtime.PostgresPool;
import io.echomq.runtime.ValkeyEndpoint;
import io.echomq.worker.FaultInjector;
import io.echomq.worker.Maintenance;
import io.echomq.worker.QueueWorker;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.UnifiedJedis;

/**
 * The engine outside any application server: a plain {@code main} that drains one queue with
 * the demo ledger handler, plus maintenance. Used to prove the guarantee under {@code kill -9}
 * of a whole worker process; it is the same engine code the WAR runs.
 *
 * <p>Configured by environment variables: {@code ECHOMQ_VALKEY_URL} (one server) or
 * {@code ECHOMQ_VALKEY_CLUSTER_NODES} ({@code host:port,...} of a Valkey Cluster, with
 * {@code ECHOMQ_VALKEY_PASSWORD}), {@code ECHOMQ_JDBC_URL} (required), {@code ECHOMQ_JDBC_USER},
 * {@code ECHOMQ_JDBC_PASSWORD}, {@code ECHOMQ_QUEUE}
 * (default {@code payments}; several, comma-separated, are each drained by their own worker), {@code ECHOMQ_CONCURRENCY} (4),
 * {@code ECHOMQ_BATCH_SIZE} (100; 1 = one transaction per job), {@code ECHOMQ_LEASE_MS} (30000),
 * {@code ECHOMQ_MAINTENANCE_INTERVAL_MS} (1000), {@code ECHOMQ_HANDLER} (a {@link JobHandler} class
 * with a public no-argument constructor; default the demo ledger handler). The effect store reads the
 * WAR's keys in their environment form, and every worker of one database must be given the same:
 * {@code ECHOMQ_IDEMPOTENCY_WINDOW_MS}, {@code ECHOMQ_EFFECT_LOCK_TIMEOUT_MS},
 * {@code ECHOMQ_EFFECT_IDLE_IN_TRANSACTION_TIMEOUT_MS}. A bad value stops it with exit status 2 and
 * a message naming the variable. Prints one line per event on stdout:
 * {@code echomq-worker event=<applied|skipped|completed> queue=<q> job=<id> attempt=<n>}.
 */
public final class StandaloneWorker {

    /** Flushed per line, so a process killed with SIGKILL has printed every event it reached. */
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

    private StandaloneWorker() {
    }

    public static void main(String[] args) throws InterruptedException {
        try {
            run(ConfigReader.environment(System.getenv()));
        } catch (ConfigurationException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
    }

    private static void run(ConfigReader read) throws InterruptedException {
        List<String> queueNames = Optional.of(read.list("ECHOMQ_QUEUE")).filter(names -> !names.isEmpty())
                .orElse(List.of(LedgerChargeHandler.QUEUE));
        int concurrency = EngineConfig.concurrency(read, "ECHOMQ_CONCURRENCY", WorkerSettings.DEFAULT.concurrency());
        int batchSize = EngineConfig.batchSize(read, "ECHOMQ_BATCH_SIZE", WorkerSettings.DEFAULT.batchSize());
        Duration lease = EngineConfig.lease(read, "ECHOMQ_LEASE_MS", WorkerSettings.DEFAULT.lease());
        Duration maintenanceInterval = EngineConfig.maintenanceInterval(read, "ECHOMQ_MAINTENANCE_INTERVAL_MS",
                Maintenance.Settings.DEFAULT.interval());
        JobHandler handler = handler(read.optional("ECHOMQ_HANDLER").orElse(LedgerChargeHandler.class.getName()));
        EffectSettings effectSettings = EngineConfig.effectSettings(read);
        String workerId = "standalone-" + ProcessHandle.current().pid();

        UnifiedJedis redis = valkeyEndpoint(read).open(concurrency * queueNames.size() + 4);
        HikariDataSource pool = PostgresPool.open("echomq-standalone",
                read.required("ECHOMQ_JDBC_URL", "the PostgreSQL database, e.g. jdbc:postgresql://127.0.0.1:5432/echomq"),
                read.optional("ECHOMQ_JDBC_USER"), read.optional("ECHOMQ_JDBC_PASSWORD"), concurrency * queueNames.size() + 2);
        Migrations.migrate(pool);
        QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
        EffectStore effects = new EffectStore(Jdbi.create(pool), effectSettings);
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
        ExecutorService loops = Executors.newFixedThreadPool(concurrency * queueNames.size());

        List<QueueWorker> workers = queueNames.stream().map(queueName -> new QueueWorker(queueName, handler,
                queue, effects, WorkerSettings.DEFAULT.withConcurrency(concurrency).withLease(lease).withBatchSize(batchSize),
                workerId, timers, FaultInjector.NONE, new EventPrinter())).toList();
        Maintenance maintenance = new Maintenance(queue, effects, queueNames,
                Maintenance.Settings.DEFAULT.withInterval(maintenanceInterval));

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Correctness never depends on this hook: a killed worker's leases simply expire.
            maintenance.stop();
            workers.forEach(worker -> worker.stop(Duration.ofSeconds(10)));
            loops.shutdownNow();
            timers.shutdownNow();
            pool.close();
            redis.close();
            stopped.countDown();
        }, "echomq-standalone-stop"));

        maintenance.start(timers);
        workers.forEach(worker -> worker.start(loops));
        OUT.println("echomq-worker event=started worker=" + workerId + " queue=" + String.join(",", queueNames));
        stopped.await();
    }

    /** The cluster when its nodes are given, else the one server of {@code ECHOMQ_VALKEY_URL}. */
    private static ValkeyEndpoint valkeyEndpoint(ConfigReader read) {
        List<String> nodes = read.list("ECHOMQ_VALKEY_CLUSTER_NODES");
        if (nodes.isEmpty()) {
            return ValkeyEndpoint.server(read.required("ECHOMQ_VALKEY_URL", "the Valkey server, e.g. redis://127.0.0.1:6379 "
                    + "(or ECHOMQ_VALKEY_CLUSTER_NODES for a Valkey Cluster)"));
        }
        return ValkeyEndpoint.cluster(ValkeyEndpoint.parseNodes("ECHOMQ_VALKEY_CLUSTER_NODES", nodes),
                Optional.empty(), read.optional("ECHOMQ_VALKEY_PASSWORD"));
    }

    /** The handler to run: fault tests swap in handlers that stall, fail or halt the JVM. */
    private static JobHandler handler(String className) {
        try {
            return (JobHandler) Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("ECHOMQ_HANDLER=" + className + " is not a JobHandler with a public no-argument constructor", e);
        }
    }

    /** One line per event, for the process-kill proof to count from outside. */
    private static final class EventPrinter implements WorkerListener {

        @Override
        public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
            String event = outcome instanceof EffectOutcome.AlreadyApplied ? "skipped" : "applied";
            OUT.println("echomq-worker event=" + event + " queue=" + job.lease().queue() + " job=" + job.id() + " attempt=" + job.attempt());
        }

        @Override
        public void completed(ClaimedJob job) {
            OUT.println("echomq-worker event=completed queue=" + job.lease().queue() + " lane=" + job.lane() + " job=" + job.id()
                    + " attempt=" + job.attempt());
        }
    }
}
