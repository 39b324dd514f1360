package io.echomq.engine;

import io.echomq.effect.EffectStore;
import io.echomq.effect.Migrations;
import io.echomq.handler.HandlerSchema;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.outbox.Outbox;
import io.echomq.outbox.OutboxRelay;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueClient;
import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.shard.QueueShards;
import io.echomq.runtime.ConfigurationException;
import io.echomq.runtime.DependencyCheck;
import io.echomq.runtime.EngineConfig;
import io.echomq.tracing.JobTelemetry;
import io.echomq.worker.WorkerListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.logging.Logger;
import org.jdbi.v3.core.Jdbi;

/**
 * An engine started from its configuration, as every runtime starts one (the WAR at deployment,
 * the standalone worker in its {@code main}): opens the connections, migrates the database (the
 * engine's tables, then those of each bound {@link HandlerSchema} handler), starts the relay of
 * the engine's outbox (where handlers' committed follow-ups wait to be sent), starts a worker per
 * handler binding with that queue's settings and the maintenance over every known queue, through the {@link EngineAssembly}. Closing it stops claiming, lets running jobs
 * finish within the configured grace period and closes the connections; leases of jobs still
 * running then expire and are reaped, never lost.
 */
public final class RunningEngine implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RunningEngine.class.getName());

    /** The engine's own outbox in the console and the gauges: the handlers' follow-up jobs wait there for the relay. */
    public static final String OUTBOX_NAME = "echomq-engine";

    /** The configuration key of each limit field a refusal names. */
    private static final Map<String, String> LIMIT_KEYS = Map.of("maxActive", "max-active", "rate.starts", "rate-starts",
            "rate.window", "rate-window-ms", "laneMaxActive", "lane-max-active", "laneRate.starts", "lane-rate-starts",
            "laneRate.window", "lane-rate-window-ms");

    private final EngineConfig config;
    private final EngineConnections connections;
    private final OutboxRelay relay;
    private final EngineAssembly assembly;
    private final Set<String> queues;

    private RunningEngine(EngineConfig config, EngineConnections connections, OutboxRelay relay, EngineAssembly assembly,
            Set<String> queues) {
        this.config = config;
        this.connections = connections;
        this.relay = relay;
        this.assembly = assembly;
        this.queues = queues;
    }

    /**
     * Starts the engine. Any failure closes what was opened and is thrown with a message that
     * says what to fix (a {@link ConfigurationException} names the setting).
     */
    public static RunningEngine start(EngineConfig config, List<HandlerBinding> handlers, EngineThreads threads, String workerId,
            WorkerListener listener, MaintenanceListener maintenanceListener, JobTelemetry telemetry) {
        Set<String> queues = knownQueues(config, handlers);
        warnIfPoolTooSmall(config, handlers);
        EngineConnections connections = new EngineConnections(config, telemetry);
        OutboxRelay relay = null;
        EngineAssembly assembly = null;
        try {
            // Before anything runs: a queue whose shard count changed while it holds jobs refuses the start.
            QueueShards shards = QueueShards.connect(connections.redis(), connections.queue(), config.replicaWait(), shardCounts(config, queues));
            Migrations.migrate(connections.dataSource());
            for (HandlerBinding binding : handlers) {
                if (binding.handler() instanceof HandlerSchema tables) {
                    Migrations.migrate(connections.dataSource(), tables, binding.beanClass().getClassLoader());
                }
            }
            // Follow-ups are written in the effect transactions, so their outbox is in the engine's own database;
            // its rows go to the queues as the engine lays them out (a sharded queue's on their shards).
            relay = OutboxRelay.start(OUTBOX_NAME, connections.dataSource(), shards.outboxDoor(), connections.queue().outboxAdmin(),
                    config.outboxPollInterval());
            assembly = new EngineAssembly(shards, connections.effects(), Outbox.relayedBy(relay), threads,
                    workerId, listener, maintenanceListener);
            for (HandlerBinding binding : handlers) {
                assembly.startWorker(binding.queue(), binding.handler(), config.workerFor(binding.queue()));
            }
            for (String queue : queues) {
                int length = config.eventStreamLengthFor(queue);
                shards.partsOf(queue).forEach(shard -> shard.admin().setEventStream(queue, length));
                config.limitsFor(queue).ifPresent(limits -> {
                    if (applyConfiguredLimits(shards, queue, limits)) {
                        LOG.info("EchoMQ queue '" + queue + "': limits " + limits + " from configuration");
                    } else if (shards.limitsInForce(queue).source().orElse(LimitsSource.CONFIG) == LimitsSource.API) {
                        LOG.info("EchoMQ queue '" + queue + "': limits set over the API stand (the configured limits " + limits
                                + " were applied before; they apply again when the configuration changes)");
                    }
                });
            }
            for (Schedule schedule : config.schedules()) {
                ScheduleClient.PutResult put = putConfigured(shards, schedule);
                if (put == ScheduleClient.PutResult.KEPT) {
                    LOG.info("EchoMQ schedule '" + schedule.name() + "' on queue '" + schedule.queue() + "': changed or removed "
                            + "over the API since configuration set it; that change stands until the configuration changes");
                } else if (put != ScheduleClient.PutResult.UNCHANGED) {
                    LOG.info("EchoMQ schedule '" + schedule.name() + "' on queue '" + schedule.queue() + "': " + put
                            + " from configuration");
                }
            }
            assembly.startMaintenance(List.copyOf(queues), config.maintenance());
        } catch (RuntimeException e) {
            if (assembly != null) {
                assembly.stop(Duration.ZERO);
            }
            if (relay != null) {
                relay.close();
            }
            connections.close();
            throw e;
        }
        LOG.info("EchoMQ started: worker " + workerId + ", queues " + queues + ", handlers "
                + handlers.stream().map(h -> h.queue() + "=" + h.beanClass().getSimpleName()).toList() + ", telemetry " + telemetry);
        return new RunningEngine(config, connections, relay, assembly, queues);
    }

    public EngineConfig config() {
        return config;
    }

    public QueueClient queue() {
        return connections.queue();
    }

    /** Each queue's layout over shards: the API, console and metrics reach a sharded queue's jobs through it. */
    public QueueShards shards() {
        return assembly.shards();
    }

    public EffectStore effects() {
        return connections.effects();
    }

    public Jdbi jdbi() {
        return connections.jdbi();
    }

    /** The queues this engine accepts jobs for: the handler-bound ones, the declared ones and those of configured schedules. */
    public Set<String> queues() {
        return queues;
    }

    /** Whether Valkey and PostgreSQL answer now. */
    public List<DependencyCheck> checkDependencies() {
        return List.of(check("valkey", () -> connections.redis().ping()),
                check("postgresql", () -> connections.jdbi().withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one())));
    }

    @Override
    public void close() {
        try {
            assembly.stop(config.shutdownGrace());
        } finally {
            // Rows not yet relayed stay in the table for the next sweep, here or on another node.
            relay.close();
            connections.close();
        }
    }

    private static DependencyCheck check(String name, Callable<?> probe) {
        try {
            probe.call();
            return new DependencyCheck(name, true, "ok");
        } catch (Exception e) {
            return new DependencyCheck(name, false, e.toString());
        }
    }

    /** Every queue name, bound or declared, checked like a submission's: a bad one fails the start, naming where it came from. */
    private static Set<String> knownQueues(EngineConfig config, List<HandlerBinding> handlers) {
        Set<String> all = new TreeSet<>();
        for (HandlerBinding h : handlers) {
            all.add(checkedQueue(h.queue(), "@HandlesQueue on " + h.beanClass().getName()));
        }
        for (String declared : config.declaredQueues()) {
            all.add(checkedQueue(declared, "echomq.queues"));
        }
        // A schedule's queue is served here: its jobs are submitted here, and this engine's maintenance fires them.
        for (Schedule schedule : config.schedules()) {
            all.add(schedule.queue());
        }
        return Set.copyOf(all);
    }

    /**
     * Applies a queue's configured limits, on a sharded queue as parts per shard (docs/SHARDING.md,
     * 4); a queue-wide cap or rate below its shard count fails the start naming its key.
     */
    private static boolean applyConfiguredLimits(QueueShards shards, String queue, QueueLimits limits) {
        try {
            return shards.applyConfiguredLimits(queue, limits);
        } catch (InvalidRequestException e) {
            String key = "echomq.queues." + queue + "." + LIMIT_KEYS.getOrDefault(e.field(), "max-active");
            throw new ConfigurationException(key, e.getMessage() + " (echomq.queues." + queue + ".shards is " + shards.shardsOf(queue) + ")");
        }
    }

    /** Puts a configured schedule, on a sharded queue on its lane's shard (docs/SHARDING.md, 3.3); a refusal fails the start naming its key. */
    private static ScheduleClient.PutResult putConfigured(QueueShards shards, Schedule schedule) {
        try {
            return shards.schedules(schedule.queue()).put(schedule, "config");
        } catch (InvalidRequestException e) {
            throw EngineConfig.scheduleRefused(schedule.name(), e);
        }
    }

    /** Each queue's {@code echomq.queues.<q>.shards}, read once at start. */
    private static Map<String, Integer> shardCounts(EngineConfig config, Set<String> queues) {
        Map<String, Integer> counts = new TreeMap<>();
        queues.forEach(queue -> counts.put(queue, config.shardsFor(queue)));
        return counts;
    }

    private static String checkedQueue(String name, String source) {
        try {
            return QueueClient.checkQueueName(name);
        } catch (InvalidRequestException e) {
            throw new ConfigurationException(source, "'" + name + "' is not a valid queue name: " + e.getMessage());
        }
    }

    /**
     * Each runner holds a connection for its effect transaction: a pool smaller than all
     * runners together makes runners queue for connections instead of working.
     */
    private static void warnIfPoolTooSmall(EngineConfig config, List<HandlerBinding> handlers) {
        int runners = handlers.stream().mapToInt(h -> config.workerFor(h.queue()).concurrency()).sum();
        if (config.jdbcPoolSize() < runners + 1) {
            LOG.warning("echomq.jdbc.pool-size (" + config.jdbcPoolSize() + ") is below the " + runners
                    + " worker runners of this engine plus one for the API and maintenance: runners will wait for "
                    + "connections; set it to at least " + (runners + 2));
        }
    }
}
