package io.echomq.runtime;

import io.echomq.effect.EffectSettings;
import io.echomq.maintenance.Maintenance;
import io.echomq.queue.Backoff;
import io.echomq.queue.EvictionPolicyCheck;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.Leases;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.Retention;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.queue.schedule.Misfire;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.eclipse.microprofile.config.Config;

/**
 * The engine's configuration, read once at deployment from MicroProfile Config (so environment
 * variables work: {@code echomq.worker.lease-ms} is {@code ECHOMQ_WORKER_LEASE_MS}). Every value
 * is checked here; a bad one fails the deployment with a message naming its key. The keys and
 * defaults are listed in the README.
 */
public final class EngineConfig {

    private static final Duration MIN_LEASE = Duration.ofMillis(100);
    private static final Duration DAY = Duration.ofDays(1);
    private static final String CLUSTER_NODES = "echomq.valkey.cluster-nodes";
    private static final String EFFECT_RETENTION = "echomq.effect.retention-ms";

    private final ConfigReader read;
    private final ValkeyEndpoint valkey;
    private final int valkeyPoolSize;
    private final ReplicaWait replicaWait;
    private final String jdbcUrl;
    private final Optional<String> jdbcUser;
    private final Optional<String> jdbcPassword;
    private final int jdbcPoolSize;
    private final QueueSettings queueSettings;
    private final WorkerSettings workerDefaults;
    private final Duration shutdownGrace;
    private final Duration outboxPollInterval;
    private final Maintenance.Settings maintenance;
    private final EffectSettings effects;
    private final List<String> declaredQueues;
    private final List<Schedule> schedules;
    private final boolean demoEnabled;
    private final boolean devMode;
    private final int eventStreamReaders;

    public EngineConfig(Config config) {
        this(new ConfigReader(config));
    }

    /**
     * The same keys from any source: the WAR reads MicroProfile Config, the standalone worker
     * its environment by MicroProfile Config's rule ({@link ConfigReader#environment}), tests a map.
     */
    public EngineConfig(ConfigReader read) {
        this(read, true);
    }

    /**
     * The engine's settings for the resource adapter, whose effect store runs on the
     * application's data source: the {@code echomq.jdbc.*} keys are neither read nor required.
     */
    public static EngineConfig withoutOwnDatabase(ConfigReader read) {
        return new EngineConfig(read, false);
    }

    private EngineConfig(ConfigReader read, boolean ownDatabase) {
        this.read = read;
        valkey = readValkeyEndpoint();
        valkeyPoolSize = read.integer("echomq.valkey.pool-size", 32, 1, 1_000);
        replicaWait = new ReplicaWait(read.integer("echomq.valkey.wait-replicas", 0, 0, 16),
                read.millis("echomq.valkey.wait-timeout-ms", ReplicaWait.NONE.timeout(), Duration.ofMillis(1), Duration.ofMinutes(1)));
        jdbcUrl = ownDatabase ? read.required("echomq.jdbc.url", "the PostgreSQL database, e.g. jdbc:postgresql://127.0.0.1:5432/echomq")
                : null;
        if (ownDatabase && !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new ConfigurationException("echomq.jdbc.url", "must be a PostgreSQL JDBC URL (jdbc:postgresql://...), was '"
                    + jdbcUrl.replaceAll("password=[^&]*", "password=***") + "'");
        }
        jdbcUser = read.optional("echomq.jdbc.user");
        jdbcPassword = read.optional("echomq.jdbc.password");
        jdbcPoolSize = read.integer("echomq.jdbc.pool-size", 16, 1, 1_000);
        workerDefaults = workerSettings("echomq.worker.", WorkerSettings.DEFAULT);
        shutdownGrace = read.millis("echomq.worker.shutdown-grace-ms", Duration.ofSeconds(10), Duration.ZERO, Duration.ofMinutes(10));
        effects = effectSettings(read);
        // Every outbox relay (the adapter's, the engine's own for follow-ups): its fallback sweep (a commit wakes it at once).
        outboxPollInterval = read.millis("echomq.outbox.poll-ms", Duration.ofMillis(500), Duration.ofMillis(10), Duration.ofMinutes(1));
        maintenance = maintenanceSettings();
        // The settle path trims completed jobs to the same bounds the maintenance pass keeps.
        queueSettings = readQueueSettings().withRetention(maintenance.retention());
        declaredQueues = read.list("echomq.queues");
        schedules = readSchedules();
        devMode = read.flag("echomq.dev-mode", false);
        eventStreamReaders = read.integer("echomq.events.max-readers", DEFAULT_EVENT_STREAM_READERS, 1, 10_000);
        // The demo binds a queue and writes tables of its own: only where someone asked for it.
        demoEnabled = read.flag("echomq.demo.enabled", devMode);
    }

    /**
     * The effect store's settings. Every worker of one database must read the same ones: a
     * worker with a shorter idempotency window would apply a resubmission the others skip.
     */
    private static EffectSettings effectSettings(ConfigReader read) {
        return new EffectSettings(
                read.millis("echomq.effect.lock-timeout-ms", EffectSettings.DEFAULT.lockTimeout(), Duration.ofMillis(1), Duration.ofHours(1)),
                read.millis("echomq.effect.idle-in-transaction-timeout-ms", EffectSettings.DEFAULT.idleInTransactionTimeout(),
                        Duration.ofMillis(1), DAY),
                read.millis("echomq.idempotency.window-ms", EffectSettings.DEFAULT.idempotencyWindow(), Duration.ofMillis(1),
                        DAY.multipliedBy(365)));
    }

    /** One server by URL, or a cluster by seed nodes; never both, so there is no doubt which one is used. */
    private ValkeyEndpoint readValkeyEndpoint() {
        List<String> seeds = read.list(CLUSTER_NODES);
        if (seeds.isEmpty()) {
            return ValkeyEndpoint.server(read.required("echomq.valkey.url", "the Valkey server, e.g. redis://:password@127.0.0.1:6379 "
                    + "(or " + CLUSTER_NODES + " for a Valkey Cluster)"));
        }
        if (read.optional("echomq.valkey.url").isPresent()) {
            throw new ConfigurationException(CLUSTER_NODES, "and echomq.valkey.url are both set; give the cluster's nodes or one "
                    + "server's URL, not both (a cluster's credentials go in echomq.valkey.user / echomq.valkey.password)");
        }
        return ValkeyEndpoint.cluster(ValkeyEndpoint.parseNodes(CLUSTER_NODES, seeds), read.optional("echomq.valkey.user"),
                read.optional("echomq.valkey.password"));
    }

    private QueueSettings readQueueSettings() {
        QueueSettings defaults = QueueSettings.DEFAULT;
        return new QueueSettings(
                read.integer("echomq.queue.max-payload-bytes", defaults.maxPayloadBytes(), 1, 64 * QueueSettings.ONE_MIB),
                read.integer("echomq.job.max-attempts", defaults.defaultMaxAttempts(), 1, defaults.maxAttemptsLimit()),
                defaults.maxAttemptsLimit(), defaults.maxDelay(), defaults.promoteBatch(),
                read.choice("echomq.queue.eviction-policy-check", EvictionPolicyCheck.class, defaults.evictionPolicyCheck()));
    }

    /** Worker settings under {@code prefix}, each absent key taking its value from {@code base}. */
    private WorkerSettings workerSettings(String prefix, WorkerSettings base) {
        Duration lease = read.millis(prefix + "lease-ms", base.lease(), MIN_LEASE, DAY);
        Duration heartbeat = read.millis(prefix + "heartbeat-ms",
                read.optional(prefix + "lease-ms").isPresent() ? lease.dividedBy(3) : base.heartbeatInterval(), Duration.ofMillis(10), DAY);
        Duration baseDelay = read.millis(prefix + "backoff-base-ms", base.backoff().base(), Duration.ZERO, DAY);
        Duration maxDelay = read.millis(prefix + "backoff-max-ms", base.backoff().cap(), Duration.ZERO, Duration.ofDays(7));
        if (maxDelay.compareTo(baseDelay) < 0) {
            throw new ConfigurationException(prefix + "backoff-max-ms", "must be at least " + prefix + "backoff-base-ms ("
                    + baseDelay.toMillis() + "), was " + maxDelay.toMillis());
        }
        if (heartbeat.multipliedBy(2).compareTo(lease) > 0) {
            throw new ConfigurationException(prefix + "heartbeat-ms", "must be at most half of " + prefix + "lease-ms ("
                    + lease.toMillis() + "), was " + heartbeat.toMillis());
        }
        return new WorkerSettings(
                read.integer(prefix + "concurrency", base.concurrency(), 1, 1_000),
                lease, heartbeat,
                read.millis(prefix + "job-timeout-ms", base.jobTimeout(), Duration.ofMillis(10), DAY),
                new Backoff(baseDelay, maxDelay),
                base.idlePoll(),
                read.integer(prefix + "batch-size", base.batchSize(), 1, Leases.MAX_CLAIM_JOBS),
                base.leaseAhead(),
                read.millis(prefix + "batch-linger-ms", base.batchLinger(), Duration.ZERO, WorkerSettings.MAX_BATCH_LINGER));
    }

    private Maintenance.Settings maintenanceSettings() {
        Retention defaults = Retention.DEFAULT;
        Retention retention = new Retention(
                read.integer("echomq.retention.completed-count", defaults.completedKeepCount(), 0, Integer.MAX_VALUE),
                read.millis("echomq.retention.completed-age-ms", defaults.completedMaxAge(), Duration.ZERO, Duration.ofDays(3650)),
                read.integer("echomq.retention.dead-count", defaults.deadKeepCount(), 0, Integer.MAX_VALUE),
                read.millis("echomq.retention.dead-age-ms", defaults.deadMaxAge(), Duration.ZERO, Duration.ofDays(3650)),
                defaults.batch());
        Maintenance.Settings base = Maintenance.Settings.DEFAULT;
        // Shorter than the window, a deleted row could no longer name its idempotency key while the key names one effect.
        Duration window = effects.idempotencyWindow();
        Duration effectRetention = read.millis(EFFECT_RETENTION, window.compareTo(base.effectRetention()) > 0 ? window
                : base.effectRetention(), Duration.ofMillis(1), Duration.ofDays(3650));
        if (effectRetention.compareTo(window) < 0) {
            throw new ConfigurationException(EFFECT_RETENTION, "must be at least echomq.idempotency.window-ms ("
                    + window.toMillis() + "), was " + effectRetention.toMillis());
        }
        return new Maintenance.Settings(
                read.millis("echomq.maintenance.interval-ms", base.interval(), Duration.ofMillis(10), Duration.ofMinutes(10)),
                base.reapBatch(), retention, base.trimEvery(), base.effectRewalkEvery(), base.reconcileBatch(), effectRetention,
                read.millis("echomq.maintenance.timeout-ms", base.timeout(), Duration.ofMillis(100), Duration.ofMinutes(10)));
    }

    private static final String SCHEDULES = "echomq.schedules";

    /** The API's field names of a schedule, and the key suffix each one is configured by. */
    private static final Map<String, String> SCHEDULE_KEYS = Map.ofEntries(Map.entry("queue", "queue"), Map.entry("cron", "cron"),
            Map.entry("zone", "zone"), Map.entry("intervalMs", "interval-ms"), Map.entry("payload", "payload"),
            Map.entry("lane", "lane"), Map.entry("maxAttempts", "max-attempts"), Map.entry("misfire", "misfire"),
            Map.entry("misfireLimit", "misfire-limit"), Map.entry("misfireGraceMs", "misfire-grace-ms"));

    /**
     * The recurring jobs of {@code echomq.schedules} (names, comma-separated), each under
     * {@code echomq.schedules.<name>.}: {@code queue}, {@code cron} and {@code zone} or
     * {@code interval-ms}, {@code payload} (default {@code {}}), {@code lane}, {@code max-attempts},
     * {@code misfire} ({@code skip}, {@code run-once}, {@code run-each}), {@code misfire-limit},
     * {@code misfire-grace-ms}. Checked like the API's; a bad value names its key.
     */
    private List<Schedule> readSchedules() {
        List<Schedule> all = new ArrayList<>();
        for (String name : read.list(SCHEDULES)) {
            String at = SCHEDULES + "." + name + ".";
            try {
                Optional<Duration> interval = read.optional(at + "interval-ms").isPresent()
                        ? Optional.of(read.millis(at + "interval-ms", Duration.ZERO, Schedule.MIN_INTERVAL, Schedule.MAX_INTERVAL))
                        : Optional.empty();
                Optional<Integer> attempts = read.optional(at + "max-attempts").isPresent()
                        ? Optional.of(read.integer(at + "max-attempts", 1, 1, queueSettings.maxAttemptsLimit())) : Optional.empty();
                Schedule schedule = new Schedule(read.required(at + "queue", "the queue the schedule's jobs go to"), name,
                        read.optional(at + "cron"), read.optional(at + "zone"), interval, read.optional(at + "payload").orElse("{}"),
                        read.optional(at + "lane").orElse(NewJob.DEFAULT_LANE), attempts,
                        Misfire.of("misfire", read.optional(at + "misfire").orElse(Misfire.RUN_ONCE.wireName())),
                        read.integer(at + "misfire-limit", Schedule.DEFAULT_MISFIRE_LIMIT, 1, Schedule.MAX_FIRES_PER_CALL),
                        read.millis(at + "misfire-grace-ms", Schedule.DEFAULT_MISFIRE_GRACE, Schedule.MIN_MISFIRE_GRACE, DAY));
                schedule.check(queueSettings);
                if (schedule.misfireGrace().compareTo(maintenance.interval()) <= 0) {
                    throw new ConfigurationException(at + "misfire-grace-ms", "must be more than echomq.maintenance.interval-ms ("
                            + maintenance.interval().toMillis() + "), or every slot would count as missed; was "
                            + schedule.misfireGrace().toMillis());
                }
                all.add(schedule);
            } catch (InvalidRequestException e) {
                throw scheduleRefused(name, e);
            }
        }
        return List.copyOf(all);
    }

    /**
     * A configured schedule refused, by its reading or by its queue's checks, naming the key of the
     * field at fault.
     */
    public static ConfigurationException scheduleRefused(String name, InvalidRequestException e) {
        String key = "name".equals(e.field()) ? SCHEDULES : SCHEDULES + "." + name + "." + SCHEDULE_KEYS.getOrDefault(e.field(), e.field());
        return new ConfigurationException(key, e.getMessage().substring(e.field().length() + 2));
    }

    /** The recurring jobs declared in configuration, put at every start (an unchanged definition stays as it is). */
    public List<Schedule> schedules() {
        return schedules;
    }

    /** The scripts' own default cap of a queue's job-event stream (see {@code includes/log_event.lua}). */
    public static final int DEFAULT_EVENT_STREAM_LENGTH = 10_000;

    /** How many HTTP job-event streams one server serves at once unless configured. */
    public static final int DEFAULT_EVENT_STREAM_READERS = 32;

    /**
     * How many HTTP job-event streams ({@code GET /api/queues/<q>/events}) this server serves at
     * once, {@code echomq.events.max-readers}: each polls Valkey on the server's scheduler and
     * holds no connection between polls; one more is refused (503) until one closes.
     */
    public int eventStreamReaders() {
        return eventStreamReaders;
    }

    /**
     * The cap of one queue's job-event stream: {@code echomq.queues.<queue>.events.max-length},
     * else {@code echomq.events.max-length}, else {@value #DEFAULT_EVENT_STREAM_LENGTH}; 0 turns
     * the queue's stream off. A bad value names its key.
     */
    public int eventStreamLengthFor(String queue) {
        int all = read.integer("echomq.events.max-length", DEFAULT_EVENT_STREAM_LENGTH, 0, QueueAdmin.MAX_EVENT_STREAM_LENGTH);
        return read.integer("echomq.queues." + queue + ".events.max-length", all, 0, QueueAdmin.MAX_EVENT_STREAM_LENGTH);
    }

    /** The key suffixes of a queue's limits under {@code echomq.queues.<queue>.}. */
    private static final List<String> LIMIT_KEYS = List.of("max-active", "rate-starts", "rate-window-ms", "lane-max-active",
            "lane-rate-starts", "lane-rate-window-ms");

    /**
     * The caps and rate limits configured for one queue under {@code echomq.queues.<queue>.}:
     * {@code max-active}, {@code rate-starts} with {@code rate-window-ms}, {@code lane-max-active},
     * {@code lane-rate-starts} with {@code lane-rate-window-ms}; empty when none of them is set
     * (the queue keeps the limits the API gave it). A bad value names its key.
     */
    public Optional<QueueLimits> limitsFor(String queue) {
        String at = "echomq.queues." + queue + ".";
        if (LIMIT_KEYS.stream().noneMatch(key -> read.optional(at + key).isPresent())) {
            return Optional.empty();
        }
        QueueLimits limits = QueueLimits.NONE;
        if (read.optional(at + "max-active").isPresent()) {
            limits = limits.withMaxActive(read.integer(at + "max-active", 1, 1, QueueLimits.MAX_COUNT));
        }
        if (read.optional(at + "lane-max-active").isPresent()) {
            limits = limits.withLaneMaxActive(read.integer(at + "lane-max-active", 1, 1, QueueLimits.MAX_COUNT));
        }
        Optional<QueueLimits.Rate> rate = rate(at + "rate-");
        Optional<QueueLimits.Rate> laneRate = rate(at + "lane-rate-");
        return Optional.of(new QueueLimits(limits.maxActive(), rate, limits.laneMaxActive(), laneRate));
    }

    /** A rate limit from {@code <prefix>starts} and {@code <prefix>window-ms}: both or neither. */
    private Optional<QueueLimits.Rate> rate(String prefix) {
        boolean starts = read.optional(prefix + "starts").isPresent();
        boolean window = read.optional(prefix + "window-ms").isPresent();
        if (starts != window) {
            throw new ConfigurationException(prefix + (starts ? "window-ms" : "starts"), "is required with " + prefix
                    + (starts ? "starts" : "window-ms") + ": a rate limit is so many starts per window");
        }
        if (!starts) {
            return Optional.empty();
        }
        return Optional.of(new QueueLimits.Rate(read.integer(prefix + "starts", 1, 1, QueueLimits.MAX_COUNT),
                read.millis(prefix + "window-ms", Duration.ofSeconds(1), Duration.ofMillis(1), QueueLimits.MAX_WINDOW)));
    }

    /**
     * How many shards one queue is laid out over, {@code echomq.queues.<queue>.shards}: 1 (the
     * default) is the queue as it is without sharding; N from 2 to {@value ShardLayout#MAX_SHARDS}
     * spreads its lanes over N slots of a Valkey Cluster (docs/SHARDING.md). A bad value names its key.
     */
    public int shardsFor(String queue) {
        return configuredShardsFor(queue).orElse(1);
    }

    /**
     * {@code echomq.queues.<queue>.shards} when it is set (see {@link #shardsFor}): a runtime that
     * only learns a queue as it goes (an outbox row's queue, an adapter's activation) lays out a
     * queue without the setting as Valkey records it, and never changes that layout.
     */
    public OptionalInt configuredShardsFor(String queue) {
        String key = "echomq.queues." + queue + ".shards";
        return read.optional(key).isPresent() ? OptionalInt.of(read.integer(key, 1, 1, ShardLayout.MAX_SHARDS)) : OptionalInt.empty();
    }

    /** The worker settings of one queue: {@code echomq.queues.<queue>.*}, else the worker defaults. */
    public WorkerSettings workerFor(String queue) {
        return workerSettings("echomq.queues." + queue + ".", workerDefaults);
    }

    public ValkeyEndpoint valkey() {
        return valkey;
    }

    /** Replicas that must hold a submission before it is acknowledged (0: the primary's word is enough). */
    public ReplicaWait replicaWait() {
        return replicaWait;
    }

    public int valkeyPoolSize() {
        return valkeyPoolSize;
    }

    /** EchoMQ's own database; null in {@link #withoutOwnDatabase} settings. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    public Optional<String> jdbcUser() {
        return jdbcUser;
    }

    public Optional<String> jdbcPassword() {
        return jdbcPassword;
    }

    public int jdbcPoolSize() {
        return jdbcPoolSize;
    }

    public QueueSettings queueSettings() {
        return queueSettings;
    }

    /**
     * How often an outbox relay (the adapter's, the engine's own for follow-ups) sweeps its table without being woken
     * ({@code echomq.outbox.poll-ms}, default 500 ms): the bound on how long a committed row
     * waits when the node that committed it died before relaying it.
     */
    public Duration outboxPollInterval() {
        return outboxPollInterval;
    }

    public Duration shutdownGrace() {
        return shutdownGrace;
    }

    public Maintenance.Settings maintenance() {
        return maintenance;
    }

    public EffectSettings effects() {
        return effects;
    }

    /** Queues that accept submissions though no handler here consumes them (workers elsewhere). */
    public List<String> declaredQueues() {
        return declaredQueues;
    }

    public boolean demoEnabled() {
        return demoEnabled;
    }

    /**
     * Whether a boolean switch is on: {@code echomq.demo.enabled} by its default (on in dev
     * mode), any other key false unless set.
     */
    public boolean switchedOn(String key) {
        return "echomq.demo.enabled".equals(key) ? demoEnabled : read.flag(key, false);
    }

    /** Dev mode: generated credentials are printed at start. Never for production. */
    public boolean devMode() {
        return devMode;
    }
}
