package io.echomq.examples.orders;

import io.echomq.api.Job;
import io.echomq.api.JobListener;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fulfils orders: a message-driven bean on the EchoMQ resource adapter, bound to it by its
 * listener interface. Each {@link #onJob} runs in the bean's container-managed transaction, into
 * which the adapter has already written the job's effect row through {@code jdbc/orders}; the
 * bean's JPA writes on the same data source commit with that row or not at all, so a job whose
 * effect committed is never applied again, whatever crashes.
 *
 * <p>Everything else (lease, backoff, timeouts) comes from the adapter's {@code echomq.worker.*}
 * settings (system properties or {@code ECHOMQ_WORKER_*} variables of the server).
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "queue", propertyValue = OrderService.QUEUE),
        @ActivationConfigProperty(propertyName = "dataSource", propertyValue = "jdbc/orders"),
        @ActivationConfigProperty(propertyName = "concurrency", propertyValue = "4")})
public class OrderFulfillment implements JobListener {

    /** Calls of {@link #onJob} in this JVM, for {@code /orders/stats}: kept outside any transaction. */
    static final LongAdder DELIVERIES = new LongAdder();
    static final LongAdder PLANNED_FAILURES = new LongAdder();

    @PersistenceContext(unitName = "orders")
    private EntityManager em;

    @Override
    public void onJob(Job job) throws Exception {
        DELIVERIES.increment();
        JsonObject payload = job.json().asJsonObject();
        long orderId = payload.getJsonNumber("orderId").longValue();
        // The effect: a row per application, then the order marked. An order that does not
        // exist (its transaction rolled back, yet its job ran) still gets its row, as evidence.
        em.persist(new OrderEffect(orderId, job.id(), job.attempt()));
        Order order = em.find(Order.class, orderId);
        if (order != null) {
            order.fulfil(job.attempt());
        }
        em.flush(); // written, so that a failure below has something to roll back
        if (job.attempt() <= payload.getInt("failAttempts", 0)) {
            PLANNED_FAILURES.increment();
            throw new PlannedFailure("order " + orderId + ": failing attempt " + job.attempt() + " of job " + job.id()
                    + " on purpose, after writing its effect");
        }
    }

    /**
     * A failure the listener method declares: an application exception, which by itself would
     * not roll the container's transaction back. The adapter marks the transaction rollback-only
     * on any exception from the bean, so the effect row and the bean's writes go together.
     */
    public static final class PlannedFailure extends Exception {
        private static final long serialVersionUID = 1L;

        PlannedFailure(String message) {
            super(message);
        }
    }
}
