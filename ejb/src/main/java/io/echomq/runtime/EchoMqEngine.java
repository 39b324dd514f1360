package io.echomq.runtime;

import io.echomq.effect.EffectStore;
import io.echomq.engine.EngineThreads;
import io.echomq.engine.HandlerBinding;
import io.echomq.engine.RunningEngine;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.queue.QueueClient;
import io.echomq.worker.SafeListener;
import io.echomq.worker.WorkerListener;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Set;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import org.eclipse.microprofile.config.Config;

/**
 * The engine in an application server, started at deployment like a resource adapter: reads
 * the configuration, finds the handler beans, and starts the {@link RunningEngine} on the
 * container's managed executors. On undeploy it stops claiming, lets running jobs finish
 * within the grace period, and closes the pools; leases of jobs still running then expire and
 * are reaped, never lost.
 *
 * <p>Any failure at start fails the deployment with a message that says what to fix.
 */
@ApplicationScoped
public class EchoMqEngine {

    /**
     * The server's default managed executors (Jakarta Concurrency). An application-defined one
     * (@ManagedExecutorDefinition) was not visible to a JNDI lookup at start on Payara Micro 6,
     * so the defaults serve; on Payara they grow a thread per drain loop.
     */
    static final String WORKER_EXECUTOR = "java:comp/DefaultManagedExecutorService";
    static final String TIMER_EXECUTOR = "java:comp/DefaultManagedScheduledExecutorService";

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
        EngineThreads threads = new EngineThreads(lookup(ManagedExecutorService.class, WORKER_EXECUTOR),
                lookup(ManagedScheduledExecutorService.class, TIMER_EXECUTOR));
        RunningEngine started = RunningEngine.start(config, handlers, threads, workerId(),
                SafeListener.of(listeners.stream().toList()), MaintenanceListener.all(maintenanceListeners.stream().toList()));
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
        }
    }

    public QueueClient queue() {
        return running().queue();
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

    /** The threads the engine runs on: the container's managed executors. */
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
            throw new IllegalStateException("EchoMQ needs the container-managed executor " + name + ": " + e.getMessage(), e);
        }
    }

    private static String workerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        return host + "-" + ProcessHandle.current().pid();
    }
}
