package io.echomq.rar;

import io.echomq.api.JobListener;
import io.echomq.engine.EngineThreads;
import io.echomq.engine.ProcessName;
import io.echomq.queue.QueueClient;
import io.echomq.queue.shard.QueueShards;
import io.echomq.tracing.JobTelemetry;
import io.echomq.rar.inbound.Activation;
import io.echomq.rar.inbound.JobActivationSpec;
import io.echomq.outbox.OutboxRelay;
import io.echomq.runtime.EngineConfig;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.ConfigProperty;
import jakarta.resource.spi.Connector;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterInternalException;
import jakarta.resource.spi.TransactionSupport;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Logger;
import javax.sql.DataSource;
import javax.transaction.xa.XAResource;
import redis.clients.jedis.UnifiedJedis;

/**
 * EchoMQ as a Jakarta Connectors resource adapter: one per server, started when {@code echomq.rar}
 * deploys. It opens the connection to Valkey and lends it to every endpoint activation (an
 * application's {@link JobListener} message-driven bean, delivered to by an {@link Activation})
 * and to the outbound connection factories.
 *
 * <p>No {@link XAResource} is offered: Valkey cannot prepare. A delivery's effect row commits in
 * the bean's JTA transaction; the fenced completion goes to Valkey after that commit, and a lost
 * completion is made good by the effect store (a redelivery finds the row and skips) and the
 * reconciler.
 */
@Connector(displayName = "EchoMQ", vendorName = "EchoMQ", eisType = "EchoMQ job queue (Valkey)", version = "0.1",
        transactionSupport = TransactionSupport.TransactionSupportLevel.NoTransaction)
public class EchoMqResourceAdapter implements ResourceAdapter {

    private static final Logger LOG = Logger.getLogger(EchoMqResourceAdapter.class.getName());
    /** Where an activation or connection factory that names no data source writes its rows. */
    public static final String DEFAULT_DATA_SOURCE = "jdbc/echomq";

    private String valkeyUrl;
    private String defaultDataSource = DEFAULT_DATA_SOURCE;
    private String telemetry;

    private volatile Runtime runtime;
    private final Map<MessageEndpointFactory, Activation> activations = new ConcurrentHashMap<>();

    /** What the adapter holds while started. */
    private record Runtime(EngineConfig config, UnifiedJedis redis, QueueClient queue, QueueShards shards, BootstrapContext context,
                           EngineThreads threads, ApplicationDataSources dataSources, Map<String, OutboxRelay> relays) {
    }

    @ConfigProperty(description = "The Valkey server, e.g. redis://127.0.0.1:6379; else echomq.valkey.url or ECHOMQ_VALKEY_URL")
    public void setValkeyUrl(String url) {
        this.valkeyUrl = url;
    }

    public String getValkeyUrl() {
        return valkeyUrl;
    }

    @ConfigProperty(defaultValue = DEFAULT_DATA_SOURCE,
            description = "JNDI name of the application's PostgreSQL data source, for activations and connection factories that name none")
    public void setDefaultDataSource(String name) {
        this.defaultDataSource = name;
    }

    public String getDefaultDataSource() {
        return defaultDataSource;
    }

    @ConfigProperty(description = "Traces of the adapter's jobs: off (the default) or global (GlobalOpenTelemetry, as the OpenTelemetry "
            + "Java agent sets it up); else echomq.adapter.telemetry or ECHOMQ_ADAPTER_TELEMETRY")
    public void setTelemetry(String choice) {
        this.telemetry = choice;
    }

    public String getTelemetry() {
        return telemetry;
    }

    /**
     * Equal when configured alike (Connectors 2.1, 5.3.1: a resource adapter JavaBean implements
     * {@code equals} and {@code hashCode} over its configuration properties). WildFly's archive
     * validation refuses an adapter class without both.
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof EchoMqResourceAdapter that && java.util.Objects.equals(valkeyUrl, that.valkeyUrl)
                && java.util.Objects.equals(defaultDataSource, that.defaultDataSource) && java.util.Objects.equals(telemetry, that.telemetry);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(valkeyUrl, defaultDataSource, telemetry);
    }

    @Override
    public void start(BootstrapContext context) throws ResourceAdapterInternalException {
        Map<String, String> properties = new HashMap<>();
        if (valkeyUrl != null && !valkeyUrl.isBlank()) {
            properties.put("echomq.valkey.url", valkeyUrl);
        }
        if (telemetry != null && !telemetry.isBlank()) {
            properties.put(AdapterTelemetry.KEY, telemetry);
        }
        EngineConfig config;
        JobTelemetry traces;
        try {
            config = AdapterConfig.read(properties);
            traces = AdapterTelemetry.chosen(AdapterConfig.value(properties, AdapterTelemetry.KEY));
        } catch (RuntimeException e) {
            throw new ResourceAdapterInternalException("EchoMQ adapter: " + e.getMessage(), e);
        }
        UnifiedJedis redis = config.valkey().open(config.valkeyPoolSize());
        QueueClient queue;
        try {
            queue = QueueClient.connect(redis, config.queueSettings(), config.replicaWait(), traces);
        } catch (RuntimeException e) {
            redis.close();
            throw new ResourceAdapterInternalException("EchoMQ adapter cannot use Valkey: " + e.getMessage(), e);
        }
        runtime = new Runtime(config, redis, queue, layOut(redis, queue, config), context, newThreads(context),
                new ApplicationDataSources(), new ConcurrentHashMap<>());
        LOG.info("EchoMQ resource adapter started: worker " + workerId() + ", Valkey "
                + (config.valkey().isCluster() ? "cluster " + config.valkey().clusterNodes() : "server") + ", telemetry " + traces);
    }

    @Override
    public void stop() {
        Runtime started = runtime;
        if (started == null) {
            return;
        }
        // One deadline for all: every activation stops leasing before any is waited for.
        activations.values().forEach(Activation::stopClaiming);
        long deadline = System.nanoTime() + started.config().shutdownGrace().toNanos();
        activations.values().forEach(a -> a.awaitStopped(deadline));
        activations.clear();
        // Outbox rows not yet relayed stay in their table for the next sweep, here or on another node.
        started.relays().values().forEach(OutboxRelay::close);
        started.threads().runners().shutdown();
        started.threads().close();
        started.redis().close();
        runtime = null;
        LOG.info("EchoMQ resource adapter stopped");
    }

    @Override
    public void endpointActivation(MessageEndpointFactory factory, ActivationSpec spec) throws ResourceException {
        if (!(spec instanceof JobActivationSpec jobs)) {
            throw new jakarta.resource.NotSupportedException("EchoMQ activates only " + JobActivationSpec.class.getName()
                    + ", got " + (spec == null ? "none" : spec.getClass().getName()));
        }
        started();
        jobs.validate();
        Activation activation = Activation.start(factory, jobs, this);
        activations.put(factory, activation);
    }

    @Override
    public void endpointDeactivation(MessageEndpointFactory factory, ActivationSpec spec) {
        Activation activation = activations.remove(factory);
        if (activation != null) {
            activation.stopClaiming();
            activation.awaitStopped(activation.deadlineFromNow());
        }
    }

    @Override
    public XAResource[] getXAResources(ActivationSpec[] specs) {
        // Valkey cannot prepare: recovery is the effect store's and the reconciler's, not the transaction manager's.
        return null;
    }

    /** The settings every activation and connection factory starts from. */
    public EngineConfig config() {
        return started().config();
    }

    public QueueClient queue() {
        return started().queue();
    }

    /** The adapter's queues, each laid out at its first use over the shards its configuration gives it (see {@link #shardsOf}). */
    public QueueShards queueShards() {
        return started().shards();
    }

    /**
     * The adapter's queues, {@code queueName} laid out by now over the shards its configuration
     * gives it ({@code echomq.queues.<q>.shards}, docs/SHARDING.md 10; without it, as Valkey records it), for an activation's workers
     * and maintenance, as the engine lays out its queues at start. The same layouts route the
     * adapter's outbox rows ({@link #dataSource}).
     *
     * @throws io.echomq.queue.shard.ShardCountRefusedException when the queue holds jobs minted under another count
     */
    public QueueShards shardsOf(String queueName) {
        QueueShards shards = started().shards();
        shards.sharded(queueName);
        return shards;
    }

    /**
     * The adapter's queues, each laid out at its first use: an activation's queue when it is
     * activated, an outbox row's queue when a relay sends it (so a row into a sharded queue is made
     * on the shard a submission of it would reach). A queue with {@code echomq.queues.<q>.shards}
     * is laid out over that count; any other as Valkey records it (the engines that serve it chose
     * its layout), never changed from here.
     */
    static QueueShards layOut(UnifiedJedis redis, QueueClient queue, EngineConfig config) {
        return QueueShards.onFirstUse(redis, queue, config.replicaWait(), config::configuredShardsFor);
    }

    /** The engine's threads for every activation: runner loops on the WorkManager, the rest the adapter's own. */
    public EngineThreads threads() {
        return started().threads();
    }

    /** Short tasks that may wait on the database or Valkey (the relay's warm-up), beside maintenance; never lease upkeep. */
    public ScheduledExecutorService timers() {
        return started().threads().maintenance();
    }

    public BootstrapContext bootstrapContext() {
        return started().context();
    }

    /** The container's registry: the adapter's view of the JTA transaction of the calling thread. */
    public TransactionSynchronizationRegistry transactions() {
        return started().context().getTransactionSynchronizationRegistry();
    }

    /**
     * The application's data source named {@code jndiName} (null or blank: the default one),
     * migrated to EchoMQ's schema.
     *
     * @param property the setting that named it, for the error message
     */
    public DataSource dataSource(String jndiName, String property) {
        String name = dataSourceName(jndiName);
        Runtime started = started();
        DataSource dataSource = started.dataSources().get(name, property);
        // Every data source the adapter uses has its outbox relayed from here on (outbound: OutboxRelay).
        started.relays().computeIfAbsent(name, n -> OutboxRelay.start(n, dataSource, started.shards().outboxDoor(),
                started.queue().outboxAdmin(), started.config().outboxPollInterval()));
        return dataSource;
    }

    /** The relay of the outbox in data source {@code jndiName}, started with the data source (see {@link #dataSource}). */
    public OutboxRelay outboxRelay(String jndiName, String property) {
        dataSource(jndiName, property);
        return started().relays().get(dataSourceName(jndiName));
    }

    private String dataSourceName(String jndiName) {
        return jndiName == null || jndiName.isBlank() ? defaultDataSource : jndiName.strip();
    }

    /** How this server names its claims in job histories. */
    public String workerId() {
        return "rar-" + ProcessName.ofThisProcess();
    }

    private Runtime started() {
        Runtime started = runtime;
        if (started == null) {
            throw new IllegalStateException("the EchoMQ resource adapter is not started");
        }
        return started;
    }

    /**
     * Runner loops on the container's WorkManager (a job's own work always runs there); lease
     * upkeep and maintenance on threads of the adapter's own, apart from each other as
     * {@link EngineThreads} decides. The Connectors contract has no scheduled executor
     * (BootstrapContext.createTimer gives a java.util.Timer, a thread of its own too).
     */
    private static EngineThreads newThreads(BootstrapContext context) {
        return EngineThreads.from(new WorkManagerExecutor(context.getWorkManager()), EngineThreads.daemonThreads("echomq-rar"));
    }
}
