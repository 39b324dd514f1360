package io.echomq.runtime;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectStore;
import io.echomq.effect.Migrations;
import io.echomq.lab.GuaranteesLab;
import io.echomq.queue.QueueClient;
import io.echomq.worker.FaultInjector;
import io.echomq.worker.Maintenance;
import io.echomq.worker.QueueWorker;
import io.echomq.worker.WorkerListener;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import org.eclipse.microprofile.config.Config;

/**
 * The engine in an application server, started at deployment like a resource adapter: reads
 * and checks the configuration, opens the pools, migrates the database, finds the handler
 * beans, and starts a worker per bound queue on threads from the container's managed thread
 * factory, plus the maintenance (reaper, retention, reconciler) on its managed scheduler. On undeploy it stops
 * claiming, lets running jobs finish within the grace period, and closes the pools; leases of
 * jobs still running then expire and are reaped, never lost.
 *
 * <p>Any failure at start fails the deployment with a message that says what to fix.
 */
@ApplicationScoped
public class EchoMqEngine {

    private static final Logger LOG = Logger.getLogger(EchoMqEngine.class.getName());

    /**
     * The server's default managed thread factory and scheduler (Jakarta Concurrency). The worker
     * runners loop for the whole deployment, so they get threads of their own from the factory
     * rather than tasks of a managed executor, which servers count as hung after a while
     * (WildFly's default executor after 60 s, in its statistics, and it can be set to cancel
     * them; Payara can be set to log them). An application-defined executor
     * (@ManagedExecutorDefinition) was not visible to a JNDI lookup at start on Payara Micro 6.
     */
    static final String WORKER_THREADS = "java:comp/DefaultManagedThreadFactory";
    static final String TIMER_EXECUTOR = "java:comp/DefaultManagedScheduledExecutorService";

    @Inject
    Config mpConfig;

    @Inject
    BeanManager beans;

    @Inject
    @Any
    Instance<WorkerListener> listeners;

    private EngineConfig config;
    /** Set once started, cleared on stop; read on every API call, so read without a lock. */
    private volatile EngineResources resources;
    private GuaranteesLab lab;
    private final List<QueueWorker> workers = new ArrayList<>();
    /** The runners' threads, made by the container's thread factory; shut down after the workers stop. */
    private ExecutorService runnerThreads;
    private Maintenance maintenance;
    private Set<String> queues = Set.of();
    private String workerId;

    /** Starts the engine as the application starts, so a bad setup fails the deployment. */
    void onStart(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        start();
    }

    synchronized void start() {
        if (resources != null) {
            return;
        }
        config = new EngineConfig(mpConfig);
        EngineResources opened = new EngineResources(config);
        try {
            Migrations.migrate(opened.dataSource);
            List<HandlerBinding> handlers = HandlerDiscovery.discover(beans, config.demoEnabled());
            warnIfPoolTooSmall(handlers);
            queues = knownQueues(handlers);
            workerId = workerId();
            WorkerListener listener = new ListenerFanOut(listeners);
            ManagedScheduledExecutorService timers = lookup(ManagedScheduledExecutorService.class, TIMER_EXECUTOR);
            runnerThreads = Executors.newCachedThreadPool(lookup(ManagedThreadFactory.class, WORKER_THREADS));
            for (HandlerBinding binding : handlers) {
                QueueWorker worker = new QueueWorker(binding.queue(), binding.handler(), opened.queue, opened.effects,
                        config.workerFor(binding.queue()), workerId, timers, FaultInjector.NONE, listener);
                worker.start(runnerThreads);
                workers.add(worker);
            }
            lab = new GuaranteesLab(opened.queue, opened.effects, opened.jdbi);
            maintenance = new Maintenance(opened.queue, opened.effects, List.copyOf(queues), config.maintenance());
            maintenance.start(timers);
            // Published last: a caller that sees the engine running sees all of it set up.
            resources = opened;
            LOG.info("EchoMQ started: worker " + workerId + ", queues " + queues + ", handlers "
                    + handlers.stream().map(h -> h.queue() + "=" + h.beanClass().getSimpleName()).toList());
        } catch (RuntimeException e) {
            stop();
            opened.close();
            throw e;
        }
    }

    /**
     * Each runner holds a connection for its effect transaction: a pool smaller than all
     * runners together makes runners queue for connections instead of working.
     */
    private void warnIfPoolTooSmall(List<HandlerBinding> handlers) {
        int runners = handlers.stream().mapToInt(h -> config.workerFor(h.queue()).concurrency()).sum();
        if (config.jdbcPoolSize() < runners + 1) {
            LOG.warning("echomq.jdbc.pool-size (" + config.jdbcPoolSize() + ") is below the " + runners
                    + " worker runners of this deployment plus one for the API and maintenance: runners will wait for "
                    + "connections; set it to at least " + (runners + 2));
        }
    }

    @PreDestroy
    synchronized void stop() {
        if (maintenance != null) {
            maintenance.stop();
        }
        for (QueueWorker worker : workers) {
            worker.stop(config.shutdownGrace());
        }
        workers.clear();
        if (runnerThreads != null) {
            // Runners still busy after the grace period are interrupted; their leases expire and are reaped.
            runnerThreads.shutdownNow();
            runnerThreads = null;
        }
        if (resources != null) {
            resources.close();
            resources = null;
        }
    }

    public QueueClient queue() {
        return running().queue;
    }

    public EffectStore effects() {
        return running().effects;
    }

    /** The queues this deployment accepts jobs for: the handler-bound ones and the declared ones. */
    public Set<String> queues() {
        running();
        return queues;
    }

    public boolean knows(String queue) {
        return queues().contains(queue);
    }

    public EngineConfig config() {
        running();
        return config;
    }

    /** The guarantees lab, which runs one demo job per call on a throwaway queue. */
    public GuaranteesLab lab() {
        running();
        return lab;
    }

    /** The demo ledger's totals, for checking exactly-once from outside. */
    public LedgerSummary demoLedger() {
        return LedgerSummary.of(running().jdbi, LedgerChargeHandler.QUEUE);
    }

    /** Whether Valkey and PostgreSQL answer now. */
    public List<DependencyCheck> checkDependencies() {
        EngineResources r = running();
        return List.of(check("valkey", () -> r.redis.ping()),
                check("postgresql", () -> r.jdbi.withHandle(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one())));
    }

    private static DependencyCheck check(String name, java.util.concurrent.Callable<?> probe) {
        try {
            probe.call();
            return new DependencyCheck(name, true, "ok");
        } catch (Exception e) {
            return new DependencyCheck(name, false, e.toString());
        }
    }

    private EngineResources running() {
        EngineResources r = resources;
        if (r == null) {
            throw new IllegalStateException("the EchoMQ engine is not running (deployment failed or undeployed)");
        }
        return r;
    }

    private Set<String> knownQueues(List<HandlerBinding> handlers) {
        Set<String> all = new TreeSet<>();
        handlers.forEach(h -> all.add(h.queue()));
        for (String declared : config.declaredQueues()) {
            try {
                QueueClient.checkQueueName(declared);
            } catch (io.echomq.queue.InvalidRequestException e) {
                throw new ConfigurationException("echomq.queues", "'" + declared + "' is not a valid queue name: " + e.getMessage());
            }
            all.add(declared);
        }
        return Set.copyOf(all);
    }

    private static <T> T lookup(Class<T> type, String name) {
        try {
            return type.cast(new InitialContext().lookup(name));
        } catch (NamingException e) {
            throw new IllegalStateException("EchoMQ needs the container-managed resource " + name + ": " + e.getMessage(), e);
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
