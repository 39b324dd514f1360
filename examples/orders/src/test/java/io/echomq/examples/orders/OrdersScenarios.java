package io.echomq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueStats;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The sample application's guarantees on one server with the EchoMQ resource adapter
 * ({@link #kind()}; each server's IT is a subclass): counted in the application's own tables
 * (orders.orders, orders.order_effects), each scenario printing one
 * {@code reliability scenario=… server=…} line and asserting it.
 */
@WithRealServices
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class OrdersScenarios {

    /** The server the scenarios run on. */
    abstract OrdersOnServer.Kind kind();

    /** Jobs held by a killed server come back within seconds: a short lease, maintenance five times a second. */
    private static final Map<String, String> FAST_RECOVERY = Map.of("ECHOMQ_WORKER_LEASE_MS", "2000",
            "ECHOMQ_MAINTENANCE_INTERVAL_MS", "200");

    /**
     * Orders whose fulfilment writes its row, then fails on attempt 1: after the failure neither
     * the bean's row nor the adapter's effect row (echomq.effect) exists; after the retry, one of
     * each, both by attempt 2.
     */
    @Test
    @Order(1)
    void mdbEffectAtomic(ValkeyService valkey, PostgresService postgres) throws Exception {
        int jobs = 20;
        // A retry 6 s after the failure, so the failed attempts are usually all seen before any retry;
        // the check below does not rely on it: a row written by a failed attempt carries attempt 1.
        Map<String, String> env = Map.of("ECHOMQ_WORKER_BACKOFF_BASE_MS", "6000", "ECHOMQ_WORKER_BACKOFF_MAX_MS", "6000");
        try (OrdersOnServer app = new OrdersOnServer(kind(), valkey, postgres, 0, env).start()) {
            StringBuilder batch = new StringBuilder("{\"orders\":[");
            for (int i = 0; i < jobs; i++) {
                batch.append(i == 0 ? "" : ",").append("{\"item\":\"atomic-").append(i).append("\",\"failAttempts\":1}");
            }
            OrdersOnServer.Answer placed = app.post("/batch", batch.append("]}").toString());
            assertThat(placed.status()).as("%s", placed).isEqualTo(201);

            OrdersOnServer.await(jobs + " planned failures", Duration.ofSeconds(60), () -> plannedFailures(app) >= jobs);
            // Counted by attempt, not in total: on a loaded machine the first jobs' retries (attempt 2)
            // may already have committed while the last jobs fail.
            long rowsAfterFailure = app.count("SELECT count(*) FROM orders.order_effects WHERE attempt = 1")
                    + app.count("SELECT count(*) FROM echomq.effect WHERE queue = 'orders' AND attempt = 1");

            app.awaitQuiet(Duration.ofSeconds(90));
            long appliedOnce = app.count("SELECT count(*) FROM orders.orders o"
                    + " WHERE (SELECT count(*) FROM orders.order_effects oe WHERE oe.order_id = o.id AND oe.attempt = 2) = 1"
                    + " AND (SELECT count(*) FROM orders.order_effects oe WHERE oe.order_id = o.id) = 1"
                    + " AND (SELECT count(*) FROM echomq.effect e JOIN orders.order_effects oe ON e.job_id::text = oe.job_id"
                    + "      WHERE e.queue = 'orders' AND oe.order_id = o.id AND e.attempt = 2) = 1"
                    + " AND o.status = 'FULFILLED' AND o.fulfilled_attempt = 2");
            long adapterRowsAtEnd = app.count("SELECT count(*) FROM echomq.effect WHERE queue = 'orders'");
            System.out.printf("reliability scenario=mdb-effect-atomic server=%s jobs=%d effect_rows_after_failure=%d applied_once=%d%n",
                    app.server.name(), jobs, rowsAfterFailure, appliedOnce);
            assertThat(rowsAfterFailure).isZero();
            assertThat(appliedOnce).isEqualTo(jobs);
            assertThat(app.effectRows()).isEqualTo(jobs);
            assertThat(adapterRowsAtEnd).isEqualTo(jobs);
            assertThat(app.queue.reads().stats(OrdersOnServer.QUEUE).completed()).isEqualTo(jobs);
        }
    }

    /**
     * 1,000 orders, each its own transaction, a random third of them rolled back after their job
     * was enqueued: exactly the committed orders' jobs run, each once.
     */
    @Test
    @Order(2)
    void outboxRollback(ValkeyService valkey, PostgresService postgres) throws Exception {
        int transactions = 1_000;
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<Boolean> rollbacks = new ArrayList<>();
        for (int i = 0; i < transactions; i++) {
            rollbacks.add(random.nextInt(3) == 0);
        }
        try (OrdersOnServer app = new OrdersOnServer(kind(), valkey, postgres, 1, Map.of()).start()) {
            AtomicLong committed = new AtomicLong();
            AtomicLong rolledBack = new AtomicLong();
            ExecutorService clients = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> posts = new ArrayList<>();
                for (int i = 0; i < transactions; i++) {
                    boolean rollback = rollbacks.get(i);
                    int n = i;
                    posts.add(clients.submit(() -> {
                        OrdersOnServer.Answer answer = app.post("/", "{\"item\":\"tx-" + n + "\",\"quantity\":1,\"rollback\":" + rollback + "}");
                        if (answer.status() == 201 && !rollback) {
                            committed.incrementAndGet();
                        } else if (answer.status() == 200 && rollback && answer.json().getBoolean("rolledBack")) {
                            rolledBack.incrementAndGet();
                        } else {
                            throw new AssertionError("POST (rollback " + rollback + ") answered " + answer);
                        }
                        return null;
                    }));
                }
                for (Future<?> post : posts) {
                    post.get();
                }
            } finally {
                clients.shutdownNow();
            }
            app.awaitQuiet(Duration.ofSeconds(120));
            Thread.sleep(2_000); // a job that should not exist, or a second run, would show by now
            app.awaitQuiet(Duration.ofSeconds(30));

            long orders = app.orders();
            long jobsRun = app.effectRows();
            long duplicates = app.duplicateEffects();
            long orphans = app.orphanEffects();
            QueueStats queue = app.queue.reads().stats(OrdersOnServer.QUEUE);
            System.out.printf("reliability scenario=outbox-rollback server=%s transactions=%d rolled_back=%d committed=%d jobs_run=%d duplicates=%d%n",
                    app.server.name(), transactions, rolledBack.get(), committed.get(), jobsRun, duplicates);
            assertThat(rolledBack.get() + committed.get()).isEqualTo(transactions);
            assertThat(rolledBack.get()).as("seed %d", seed).isPositive();
            assertThat(orders).as("orders committed").isEqualTo(committed.get());
            assertThat(orphans).as("jobs of rolled-back orders that ran").isZero();
            assertThat(duplicates).isZero();
            assertThat(jobsRun).isEqualTo(committed.get());
            assertThat(queue.completed()).as("jobs that reached Valkey: the committed ones only, %s", queue).isEqualTo(committed.get());
            assertThat(queue.dead()).isZero();
        }
    }

    /**
     * 2,000 orders (submitted while the queue is paused, so the kill lands on a backlog), the
     * server killed with SIGKILL while the bean works them, restarted: every order fulfilled
     * once, counted in the application's own tables.
     */
    @Test
    @Order(3)
    void mdbKill9(ValkeyService valkey, PostgresService postgres) throws Exception {
        int jobs = 2_000;
        int batch = 100;
        try (OrdersOnServer app = new OrdersOnServer(kind(), valkey, postgres, 2, FAST_RECOVERY).start()) {
            app.queue.admin().pause(OrdersOnServer.QUEUE);
            for (int b = 0; b < jobs / batch; b++) {
                StringBuilder body = new StringBuilder("{\"orders\":[");
                for (int i = 0; i < batch; i++) {
                    body.append(i == 0 ? "" : ",").append("{\"item\":\"kill-").append(b * batch + i).append("\"}");
                }
                OrdersOnServer.Answer placed = app.post("/batch", body.append("]}").toString());
                assertThat(placed.status()).as("%s", placed).isEqualTo(201);
            }
            OrdersOnServer.await("all jobs relayed to Valkey", Duration.ofSeconds(60),
                    () -> app.outbox() == 0 && app.queue.reads().stats(OrdersOnServer.QUEUE).pending() == jobs);
            app.queue.admin().resume(OrdersOnServer.QUEUE);

            OrdersOnServer.await("a third of the orders fulfilled", Duration.ofSeconds(120), () -> app.effectRows() >= jobs / 3);
            app.server.killHard();
            long fulfilledAtKill = app.effectRows();
            QueueStats atKill = app.queue.reads().stats(OrdersOnServer.QUEUE);
            assertThat(atKill.pending() + atKill.active()).as("the kill must hit work left: %s", atKill).isPositive();
            app.server.restart();

            try {
                app.awaitQuiet(Duration.ofSeconds(180));
                Thread.sleep(2_000);
            } finally {
                long lost = app.ordersWithoutEffect();
                long duplicates = app.duplicateEffects();
                System.out.printf("reliability scenario=mdb-kill-9 server=%s jobs=%d kills=1 lost=%d duplicates=%d%n",
                        app.server.name(), app.orders(), lost, duplicates);
                System.out.printf("  (killed with %d of %d applied, queue at the kill: %s)%n", fulfilledAtKill, jobs, atKill);
                assertThat(app.orders()).isEqualTo(jobs);
                assertThat(lost).isZero();
                assertThat(duplicates).isZero();
                assertThat(app.orphanEffects()).isZero();
            }
        }
    }

    /**
     * The relay's crash window: the server JVM halts right after the relay's N-th enqueue to
     * Valkey, before it deletes the outbox row; restarted without the hook, it relays the rows
     * again, and every committed order's effect is applied exactly once.
     */
    @Test
    @Order(4)
    void outboxRelayCrash(ValkeyService valkey, PostgresService postgres) throws Exception {
        int orders = 300;
        int haltAfter = 150;
        int batch = 100;
        try (OrdersOnServer app = new OrdersOnServer(kind(), valkey, postgres, 3, FAST_RECOVERY)) {
            app.start(Map.of("echomq.test.relay-halt-after-enqueue", Integer.toString(haltAfter)));
            long committed = 0;
            for (int b = 0; b < orders / batch && app.server.isRunning(); b++) {
                StringBuilder body = new StringBuilder("{\"orders\":[");
                for (int i = 0; i < batch; i++) {
                    body.append(i == 0 ? "" : ",").append("{\"item\":\"relay-").append(b * batch + i).append("\"}");
                }
                try {
                    OrdersOnServer.Answer placed = app.post("/batch", body.append("]}").toString());
                    assertThat(placed.status()).as("%s", placed).isEqualTo(201);
                    committed += batch;
                } catch (java.io.IOException e) {
                    // The JVM halted during this request: whether its transaction committed, the table tells.
                }
            }
            OrdersOnServer.await("the server to halt after the relay's enqueue " + haltAfter, Duration.ofSeconds(60),
                    () -> !app.server.isRunning());
            long outboxAtHalt = app.outbox();
            long ordersAtHalt = app.orders();
            assertThat(ordersAtHalt).as("orders committed before the halt").isGreaterThanOrEqualTo(committed).isGreaterThan(haltAfter);
            assertThat(outboxAtHalt).as("the halted relay left rows it had enqueued but not deleted").isPositive();

            app.start(); // without the hook
            try {
                app.awaitQuiet(Duration.ofSeconds(120));
                Thread.sleep(2_000);
            } finally {
                long lost = app.ordersWithoutEffect();
                long duplicates = app.duplicateEffects();
                System.out.printf("reliability scenario=outbox-relay-crash server=%s jobs=%d lost=%d duplicates=%d%n",
                        app.server.name(), app.orders(), lost, duplicates);
                System.out.printf("  (halted after relay enqueue %d with %d outbox rows left)%n", haltAfter, outboxAtHalt);
                assertThat(lost).isZero();
                assertThat(duplicates).isZero();
                assertThat(app.orphanEffects()).isZero();
                assertThat(app.queue.reads().stats(OrdersOnServer.QUEUE).completed()).as("one job per order in Valkey").isEqualTo(app.orders());
            }
        }
    }

    private static long plannedFailures(OrdersOnServer app) {
        try {
            return app.stats().getJsonNumber("plannedFailures").longValue();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
