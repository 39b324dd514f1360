package io.echomq.rar.inbound;

import io.echomq.api.Job;
import io.echomq.api.JobListener;
import io.echomq.effect.EffectTransactions;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.Method;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Handles;
import org.jdbi.v3.core.Jdbi;

/**
 * Delivers jobs to one activated message-driven bean, each in the bean's container-managed JTA
 * transaction: as the effect store's {@link EffectTransactions}, it begins the delivery
 * ({@code beforeDelivery}, which starts the transaction on this thread), lets the store write
 * the effect row through the application's data source (enlisted in that transaction), and ends
 * it ({@code afterDelivery}, which commits); as the worker's {@link JobHandler}, it calls the
 * bean's {@link JobListener#onJob} in between.
 *
 * <p>Invariant 11: {@link #inTransaction} returns only when the transaction committed, which it
 * learns from the transaction manager itself (an interposed {@link Synchronization}), not from
 * {@code afterDelivery} returning: a container need not throw when the transaction it ends was
 * rolled back. So the worker never acknowledges a job whose effect did not commit.
 */
final class EndpointDelivery implements EffectTransactions, JobHandler {

    static final Method ON_JOB;

    static {
        try {
            ON_JOB = JobListener.class.getMethod("onJob", Job.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MessageEndpointFactory factory;
    private final Jdbi jdbi;
    private final TransactionSynchronizationRegistry registry;
    /** The endpoint of the delivery this thread is in, between beforeDelivery and afterDelivery. */
    private final ThreadLocal<MessageEndpoint> delivering = new ThreadLocal<>();

    EndpointDelivery(MessageEndpointFactory factory, DataSource dataSource, TransactionSynchronizationRegistry registry) {
        this.factory = factory;
        this.jdbi = Jdbi.create(dataSource);
        // The container ends the transaction, not the handle: a handle closed inside a JTA
        // transaction is not a leaked local one.
        this.jdbi.getConfig(Handles.class).setForceEndTransactions(false);
        this.registry = registry;
    }

    @Override
    public <R> R inTransaction(HandleCallback<R, RuntimeException> work) {
        MessageEndpoint endpoint = createEndpoint();
        try {
            begin(endpoint);
            Completion completion = new Completion();
            R result;
            delivering.set(endpoint);
            try (Handle handle = jdbi.open()) {
                registry.registerInterposedSynchronization(completion);
                result = work.withHandle(handle);
            } catch (RuntimeException | Error e) {
                rollBack(endpoint, e);
                throw e;
            } finally {
                delivering.remove();
            }
            end(endpoint);
            if (completion.status != Status.STATUS_COMMITTED) {
                throw new DeliveryRolledBack("the transaction of the delivery to " + beanName()
                        + " did not commit (JTA status " + completion.status + "); the job will be retried");
            }
            return result;
        } finally {
            endpoint.release();
        }
    }

    @Override
    public <R> R withHandle(HandleCallback<R, RuntimeException> work) {
        return jdbi.withHandle(work);
    }

    @Override
    public void handle(JobContext job) throws Exception {
        MessageEndpoint endpoint = delivering.get();
        if (endpoint == null) {
            throw new IllegalStateException("a job reached " + beanName() + " outside a delivery");
        }
        ((JobListener) endpoint).onJob(job.job());
    }

    private MessageEndpoint createEndpoint() {
        try {
            return factory.createEndpoint(null);
        } catch (ResourceException e) {
            // UnavailableException while the application undeploys, say: the job goes back with backoff.
            throw new DeliveryRolledBack("no endpoint of " + beanName() + " to deliver to: " + e.getMessage(), e);
        }
    }

    private void begin(MessageEndpoint endpoint) {
        try {
            endpoint.beforeDelivery(ON_JOB);
        } catch (NoSuchMethodException | ResourceException e) {
            throw new DeliveryRolledBack("the container refused to start a delivery to " + beanName() + ": " + e.getMessage(), e);
        }
    }

    private void end(MessageEndpoint endpoint) {
        try {
            endpoint.afterDelivery();
        } catch (ResourceException e) {
            throw new DeliveryRolledBack("the transaction of the delivery to " + beanName() + " failed to complete: "
                    + e.getMessage(), e);
        }
    }

    /** The bean threw (or the effect store failed): nothing of the delivery may commit, whatever kind of exception it was. */
    private void rollBack(MessageEndpoint endpoint, Throwable cause) {
        try {
            registry.setRollbackOnly();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
        try {
            endpoint.afterDelivery();
        } catch (ResourceException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private String beanName() {
        Class<?> type = factory.getEndpointClass();
        return type == null ? factory.getActivationName() : type.getName();
    }

    /** Hears from the transaction manager how the delivery's transaction ended. */
    private static final class Completion implements Synchronization {
        /** STATUS_UNKNOWN until the transaction completes. */
        volatile int status = Status.STATUS_UNKNOWN;

        @Override
        public void beforeCompletion() {
        }

        @Override
        public void afterCompletion(int outcome) {
            status = outcome;
        }
    }

    /** The delivery's transaction did not commit: the attempt failed and the job is retried. */
    static final class DeliveryRolledBack extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DeliveryRolledBack(String message) {
            super(message);
        }

        DeliveryRolledBack(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
