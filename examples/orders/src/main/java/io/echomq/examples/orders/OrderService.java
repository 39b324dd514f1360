package io.echomq.examples.orders;

import io.echomq.api.JobQueueConnection;
import io.echomq.api.JobQueueConnectionFactory;
import io.echomq.api.JobRequest;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.json.Json;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.resource.ConnectionFactoryDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * Places orders: each order is persisted and its fulfilment job enqueued in ONE JTA transaction
 * (the bean's container-managed one). The adapter's connection factory writes the job to its
 * outbox through {@code jdbc/orders}, the persistence unit's data source, so the order and its
 * job commit together or not at all; the adapter relays the job to Valkey after the commit.
 */
@Stateless
@ConnectionFactoryDefinition(name = OrderService.JOBS, interfaceName = "io.echomq.api.JobQueueConnectionFactory",
        resourceAdapter = "echomq", properties = {"dataSource=jdbc/orders"})
public class OrderService {

    /** Where the application defines the adapter's connection factory. */
    static final String JOBS = "java:app/echomq/jobs";
    /** The queue {@link OrderFulfillment} listens on. */
    static final String QUEUE = "orders";

    @PersistenceContext(unitName = "orders")
    private EntityManager em;

    @Resource(lookup = JOBS)
    private JobQueueConnectionFactory jobs;

    @Resource
    private SessionContext context;

    /** What came of a placement: the orders' ids, and whether the transaction was made to roll back. */
    public record Placed(List<Long> ids, boolean rolledBack) {
    }

    /**
     * Persists the orders and enqueues one fulfilment job for each; with {@code rollback}, then
     * marks the transaction for rollback, so neither the orders nor their jobs remain.
     */
    public Placed place(List<OrderRequest> requests, boolean rollback) {
        List<Order> placed = new ArrayList<>();
        for (OrderRequest request : requests) {
            Order order = new Order(request.item, request.quantity);
            em.persist(order);
            placed.add(order);
        }
        em.flush(); // the ids, for the jobs' payloads
        List<JobRequest> fulfilments = new ArrayList<>();
        for (int i = 0; i < placed.size(); i++) {
            fulfilments.add(JobRequest.of(QUEUE, Json.createObjectBuilder()
                    .add("orderId", placed.get(i).getId())
                    .add("failAttempts", requests.get(i).failAttempts)
                    .build().toString()));
        }
        try (JobQueueConnection connection = jobs.getConnection()) {
            if (fulfilments.size() == 1) {
                connection.enqueue(fulfilments.get(0));
            } else {
                connection.enqueueBatch(fulfilments);
            }
        }
        if (rollback) {
            context.setRollbackOnly();
        }
        return new Placed(placed.stream().map(Order::getId).toList(), rollback);
    }

    public Order find(long id) {
        return em.find(Order.class, id);
    }

    /** Counts over the application's tables, for the tests and the curious. */
    public Stats stats() {
        Object[] row = (Object[]) em.createNativeQuery("SELECT"
                + " (SELECT count(*) FROM orders.orders),"
                + " (SELECT count(*) FROM orders.orders WHERE status = 'FULFILLED'),"
                + " (SELECT count(*) FROM orders.order_effects),"
                + " (SELECT count(DISTINCT order_id) FROM orders.order_effects),"
                + " (SELECT count(*) FROM orders.orders o WHERE NOT EXISTS"
                + "   (SELECT 1 FROM orders.order_effects e WHERE e.order_id = o.id)),"
                + " (SELECT count(*) FROM orders.order_effects e WHERE NOT EXISTS"
                + "   (SELECT 1 FROM orders.orders o WHERE o.id = e.order_id))").getSingleResult();
        long effects = number(row[2]);
        long ordersWithEffect = number(row[3]);
        return new Stats(number(row[0]), number(row[1]), effects, number(row[4]), effects - ordersWithEffect, number(row[5]),
                OrderFulfillment.DELIVERIES.sum(), OrderFulfillment.PLANNED_FAILURES.sum());
    }

    private static long number(Object value) {
        return ((Number) value).longValue();
    }

    /**
     * @param orders              orders committed
     * @param fulfilled           orders marked fulfilled
     * @param effects             effect rows written by the message-driven bean (committed ones)
     * @param ordersWithoutEffect orders no committed effect row stands for (not yet run, or lost)
     * @param duplicateEffects    effect rows beyond the first of their order (applied twice)
     * @param orphanEffects       effect rows of orders that do not exist (a rolled-back order's job ran)
     * @param deliveries          calls of the bean in this JVM, committed or not
     * @param plannedFailures     of which failed on purpose ({@code failAttempts})
     */
    public record Stats(long orders, long fulfilled, long effects, long ordersWithoutEffect, long duplicateEffects,
                        long orphanEffects, long deliveries, long plannedFailures) {
    }
}
