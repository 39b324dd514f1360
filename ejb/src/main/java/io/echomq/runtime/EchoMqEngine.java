package io.echomq.runtime;

import io.echomq.effect.EffectStore;
import io.echomq.engine.ProcessName;
import io.echomq.engine.EngineThreads;
import io.echomq.engine.HandlerBinding;
import io.echomq.engine.RunningEngine;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.queue.QueueClient;
import io.echomq.queue.shard.QueueShards;
import io.echomq.tracing.JobTelemetry;
import io.echomq.worker.SafeListener;
import io.echomq.worker.WorkerListener;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import org.eclipse.microprofile.config.Config;

/**
 * The engine in an application server, started at deployment like a resource adapter: reads
 * the configuration, finds the handler beans, and starts the {@link RunningEngine} on threads from
 * the container's managed thread factory ({@link EngineThreads} decides which work shares which of
 * them). On undeploy it stops claiming, lets running jobs finish
 * within the grace period, and closes the pools; leases of jobs still running then expire and
 * are reaped, never lost.
 *
 * <p>Any failure at start fails the deployment with a message that says what to fix.
 */
@ApplicationScoped
public class EchoMqEngine {

    /**
     * The server's default managed thread factory (Jakarta Concurrency), the source of every thread
     * of the engine. The worker runners loop for the whole deployment, so they get threads of
     * their own from the factory rather than tasks of a managed executor, which servers count as
     * hung after a while (WildFly's default executor after 60 s, in its statistics, and it can be
     * set to cancel them; Payara can be set to log them). Lease upkeep and maintenance get
     * schedulers of their own over the same factory, not the server's default managed scheduled
     * executor: that one is shared with the whole application, and a heartbeat queued there waits
     * behind whatever else runs on it (maintenance waiting for a database connection, once). An
     * application-defined executor (@ManagedExecutorDefinition, @ManagedScheduledExecutorDefinition)
     * was not visible to a JNDI lookup at start on Payara Micro 6.
     */
    static final String ENGINE_THREADS = "java:comp/DefaultManagedThreadFactory";

    @Inject
    Config mpConfig;

    @Inject
    BeanManager beans;

    @Inject
    @Any
    Instance<WorkerListener> listeners;

    @Inject
    @Any
    Instance<MaintenanceListener> maintenanceListeners;

    /** Unresolvable where the server offers no OpenTelemetry to the application ({@link ServerTelemetry}). */
    @Inject
    Instance<JobTelemetry> telemetry;

    /** Set once started, cleared on stop; read on every API call, so read without a lock. */
    private volatile RunningEngine engine;
    private volatile EngineThreads threads;

    /** Starts the engine as the application starts, so a bad setup fails the deployment. */
    void onStart(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        start();
    }

    synchronized void start() {
        if (engine != null) {
            return;
        }
        EngineConfig config = new EngineConfig(mpConfig);
        List<HandlerBinding> handlers = HandlerDiscovery.discover(beans, config::switchedOn);
        EngineThreads threads = EngineThreads.from(lookup(ManagedThreadFactory.class, ENGINE_THREADS));
        RunningEngine started;
        try {
            started = RunningEngine.start(config, handlers, threads, ProcessName.ofThisProcess(),
                    SafeListener.of(listeners.stream().toList()), MaintenanceListener.all(maintenanceListeners.stream().toList()),
                    telemetry.isResolvable() ? telemetry.get() : JobTelemetry.OFF);
        } catch (RuntimeException e) {
            threads.close();
            throw e;
        }
        this.threads = threads;
        // Published last: a caller that sees the engine running sees all of it set up.
        engine = started;
    }

    @PreDestroy
    synchronized void stop() {
        RunningEngine running = engine;
        engine = null;
        if (running != null) {
            running.close();
            // Runners still busy after the grace period are interrupted; their leases expire and are reaped.
            threads.close();
            threads = null;
        }
    }

    public QueueClient queue() {
        return running().queue();
    }

    /** Each queue's layout over shards: a sharded queue's jobs are reached through it, not through {@link #queue()} alone. */
    public QueueShards shards() {
        return running().shards();
    }

    public EffectStore effects() {
        return running().effects();
    }

    /** The queues this deployment accepts jobs for: the handler-bound ones and the declared ones. */
    public Set<String> queues() {
        return running().queues();
    }

    public boolean knows(String queue) {
        return queues().contains(queue);
    }

    public EngineConfig config() {
        return running().config();
    }

    /** The threads the engine runs on, all from the container's managed thread factory. */
    public EngineThreads threads() {
        running();
        return threads;
    }

    /** The engine's database, for the demo's and the lab's own tables; the API goes through the engine's interfaces. */
    public org.jdbi.v3.core.Jdbi jdbi() {
        return running().jdbi();
    }

    /** Whether Valkey and PostgreSQL answer now. */
    public List<DependencyCheck> checkDependencies() {
        return running().checkDependencies();
    }

    private RunningEngine running() {
        RunningEngine r = engine;
        if (r == null) {
            throw new IllegalStateException("the EchoMQ engine is not running (deployment failed or undeployed)");
        }
        return r;
    }

    private static <T> T lookup(Class<T> type, String name) {
        try {
            return type.cast(new InitialContext().lookup(name));
        } catch (NamingException e) {
            throw new IllegalStateException("EchoMQ needs the container-managed " + type.getSimpleName() + " " + name + ": " + e.getMessage(), e);
        }
    }
}
