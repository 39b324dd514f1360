package io.echomq.rar.inbound;

import io.echomq.effect.EffectStore;
import io.echomq.engine.EngineAssembly;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.outbox.Outbox;
import io.echomq.outbox.OutboxRelay;
import io.echomq.rar.EchoMqResourceAdapter;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import jakarta.resource.NotSupportedException;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * One activated message-driven bean: a worker of the engine's own kind, built by the
 * {@link EngineAssembly} like the WAR's and the standalone worker's, whose runners are
 * WorkManager work and whose effect transactions are the bean's JTA transactions
 * ({@link EndpointDelivery}); and the maintenance of its queue (reaper, retention, reconciler,
 * effect retention over the bean's data source), so a server that only runs the adapter still
 * returns the jobs of a crashed server to pending.
 */
public final class Activation {

    private static final Logger LOG = Logger.getLogger(Activation.class.getName());

    private final String name;
    private final EngineAssembly assembly;
    private final long graceNanos;

    private Activation(String name, EngineAssembly assembly, long graceNanos) {
        this.name = name;
        this.assembly = assembly;
        this.graceNanos = graceNanos;
    }

    /**
     * Starts delivering {@code spec}'s queue to the bean. The bean's {@code onJob} must run in a
     * container-managed transaction (REQUIRED, the default): the effect row is written in it.
     */
    public static Activation start(MessageEndpointFactory factory, JobActivationSpec spec, EchoMqResourceAdapter adapter)
            throws ResourceException {
        if (!transacted(factory)) {
            throw new NotSupportedException("EchoMQ delivers to " + bean(factory) + " only in a container-managed transaction, "
                    + "which records the job's effect with the bean's own writes: give onJob "
                    + "@TransactionAttribute(REQUIRED) (the default) and do not use bean-managed transactions");
        }
        WorkerSettings settings = spec.workerSettings(adapter.config().workerFor(spec.getQueue()));
        DataSource dataSource;
        OutboxRelay relay;
        try {
            dataSource = adapter.dataSource(spec.getDataSource(), "dataSource");
            relay = adapter.outboxRelay(spec.getDataSource(), "dataSource");
        } catch (RuntimeException e) {
            throw new ResourceException("EchoMQ activation of " + bean(factory) + ": " + e.getMessage(), e);
        }
        EndpointDelivery delivery = new EndpointDelivery(factory, dataSource, adapter.transactions());
        EffectStore effects = new EffectStore(delivery, adapter.config().effects());
        // The bean's data source's outbox, relayed like its connection factories' rows: one outbox, one relay, one key rule.
        Outbox outbox = Outbox.relayedBy(relay);
        EngineAssembly assembly;
        try {
            // Its workers claim through the queue's WorkerLeases (over every shard of a sharded queue), as the engine's do.
            assembly = new EngineAssembly(adapter.shardsOf(spec.getQueue()), effects, outbox, adapter.threads(), adapter.workerId(),
                    WorkerListener.NONE, MaintenanceListener.NONE);
        } catch (RuntimeException e) {
            throw new ResourceException("EchoMQ activation of " + bean(factory) + ": " + e.getMessage(), e);
        }
        try {
            assembly.startWorker(spec.getQueue(), delivery, settings);
            assembly.startMaintenance(List.of(spec.getQueue()), adapter.config().maintenance());
        } catch (RuntimeException e) {
            assembly.stop(java.time.Duration.ZERO);
            throw new ResourceException("EchoMQ activation of " + bean(factory) + " failed: " + e.getMessage(), e);
        }
        String name = bean(factory) + " on queue '" + spec.getQueue() + "'";
        LOG.info("EchoMQ delivers to " + name + ", concurrency " + settings.concurrency() + ", lease " + settings.lease().toMillis()
                + " ms");
        return new Activation(name, assembly, adapter.config().shutdownGrace().toNanos());
    }

    /** Stops leasing at once; what is running goes on. */
    public void stopClaiming() {
        assembly.stopClaiming();
    }

    /**
     * Waits, within the shutdown grace, for the deliveries running to end and be acknowledged;
     * jobs still running past it stop being kept alive and are reaped, never lost.
     */
    public void awaitStopped(long deadlineNanos) {
        if (!assembly.awaitStopped(deadlineNanos)) {
            LOG.warning("EchoMQ: deliveries to " + name + " still running at the stop deadline are left to the reaper");
        }
    }

    /** When a stop that starts now must end. */
    public long deadlineFromNow() {
        return System.nanoTime() + graceNanos;
    }

    private static boolean transacted(MessageEndpointFactory factory) {
        try {
            return factory.isDeliveryTransacted(EndpointDelivery.ON_JOB);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("the listener interface lost its onJob method", e);
        }
    }

    private static String bean(MessageEndpointFactory factory) {
        Class<?> type = factory.getEndpointClass();
        return type == null ? factory.getActivationName() : type.getName();
    }
}
