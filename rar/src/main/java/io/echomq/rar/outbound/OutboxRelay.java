package io.echomq.rar.outbound;

import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Moves committed rows of one data source's {@code echomq.outbox} to Valkey. Every node runs one
 * per data source it uses; they share the table safely.
 *
 * <p>A sweep takes up to {@value #BATCH} rows, oldest first, with {@code FOR UPDATE SKIP LOCKED} in
 * a local transaction of its own (on the relay's thread there is no JTA transaction, so the data
 * source gives an unenlisted connection), enqueues each with an idempotency key (the request's
 * own, else {@code outbox:<relay_key>}), deletes the rows sent and commits. A relay that dies
 * between an enqueue and its commit leaves the row for the next sweep, here or on another node,
 * whose enqueue Valkey answers with the first job (the key, while Valkey holds that job; past
 * retention the effect store's idempotency key, V4, still applies the effect once). Two relays
 * never take the same row at once (the row lock).
 *
 * <p>When it sweeps: at once when the transaction that wrote rows commits on this node (an
 * interposed synchronization {@linkplain #wake() wakes} the relay: milliseconds after the
 * commit), and every {@code echomq.outbox.poll-ms} (default 500 ms) as the fallback for rows whose
 * node died before relaying them. No LISTEN/NOTIFY: the committing node relays its own rows, and
 * the sweep's interval bounds the wait after a crash.
 *
 * <p>A row Valkey does not take stays, with {@code attempts} counted up and {@code last_error}
 * set, and is tried again next sweep: rows are never dropped. When Valkey is unavailable the
 * sweep stops at the first failure and marks the rest of its batch the same way.
 *
 * <p>Sweeps run on a thread of the relay's own, not the adapter's timers: a sweep waits on Valkey's
 * and PostgreSQL's timeouts when either is down, and the timers carry the lease heartbeats that
 * must not wait behind it. Each sweep also publishes the outbox's depth and oldest row's age
 * ({@link QueueClient#publishOutbox}).
 */
public final class OutboxRelay implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class.getName());

    /**
     * TEST ONLY (the proof {@code outbox-relay-crash}): when this system property holds a number
     * N, the JVM halts with status 137 right after its N-th successful Valkey enqueue by any relay,
     * before that row's DELETE and commit: the crash window the idempotency key must cover.
     * Never set it in production.
     */
    public static final String HALT_AFTER_ENQUEUE = "echomq.test.relay-halt-after-enqueue";
    private static final AtomicLong ENQUEUES_IN_THIS_JVM = new AtomicLong();

    /** Rows per sweep transaction: small enough to hold their locks briefly. */
    static final int BATCH = 100;
    /** Batches per sweep when a backlog is waiting, so one sweep does not hold the thread for long. */
    private static final int MAX_BATCHES_PER_SWEEP = 50;
    /** Prefix of the idempotency key of a row whose request carried none. */
    public static final String RELAY_KEY_PREFIX = "outbox:";
    private static final int MAX_ERROR_CHARS = 2_000;

    private static final String SELECT = "SELECT id, relay_key, queue, payload, lane, idempotency_key, max_attempts, delay_ms, priority "
            + "FROM echomq.outbox ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
    private static final String DELETE = "DELETE FROM echomq.outbox WHERE id = ANY(?)";
    private static final String FAILED = "UPDATE echomq.outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?";
    private static final String GAUGES = "SELECT count(*), COALESCE((EXTRACT(EPOCH FROM clock_timestamp() - min(created_at)) * 1000)::bigint, 0) "
            + "FROM echomq.outbox";

    private final String name;
    private final DataSource dataSource;
    private final QueueClient queue;
    private final Duration pollInterval;
    private final Long haltAfter = Long.getLong(HALT_AFTER_ENQUEUE);
    private final ScheduledExecutorService thread;
    private final AtomicBoolean woken = new AtomicBoolean();
    private volatile boolean closed;

    /** What one sweep did. */
    public record Sweep(int relayed, int failed, boolean valkeyUnavailable) {
    }

    private OutboxRelay(String name, DataSource dataSource, QueueClient queue, Duration pollInterval) {
        this.name = name;
        this.dataSource = dataSource;
        this.queue = queue;
        this.pollInterval = pollInterval;
        this.thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "echomq-outbox-relay[" + name + "]");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * A relay for the outbox of {@code dataSource} (already migrated), not yet sweeping: tests call
     * {@link #sweep()} themselves.
     *
     * @param name the data source's JNDI name, the outbox's name in logs and gauges
     */
    public static OutboxRelay idle(String name, DataSource dataSource, QueueClient queue, Duration pollInterval) {
        return new OutboxRelay(name, dataSource, queue, pollInterval);
    }

    /** A relay sweeping every {@code pollInterval} and whenever woken. */
    public static OutboxRelay start(String name, DataSource dataSource, QueueClient queue, Duration pollInterval) {
        OutboxRelay relay = new OutboxRelay(name, dataSource, queue, pollInterval);
        long ms = pollInterval.toMillis();
        relay.thread.scheduleWithFixedDelay(relay::sweepQuietly, ms, ms, TimeUnit.MILLISECONDS);
        LOG.info("EchoMQ outbox relay started for " + name + ", sweeping every " + ms + " ms");
        return relay;
    }

    public String name() {
        return name;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Asks for a sweep as soon as the relay's thread is free; returns at once. Called after a
     * commit that wrote rows; many wakes while one sweep waits make one sweep.
     */
    public void wake() {
        if (!closed && woken.compareAndSet(false, true)) {
            try {
                thread.execute(() -> {
                    woken.set(false);
                    sweepQuietly();
                });
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                woken.set(false);
            }
        }
    }

    private void sweepQuietly() {
        if (closed) {
            return;
        }
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "EchoMQ outbox relay " + name + ": sweep failed, the rows stay for the next one", e);
        }
    }

    /**
     * Relays what the outbox holds now (up to {@value #MAX_BATCHES_PER_SWEEP} batches), then
     * publishes the gauges. Safe beside other relays on the same table, here or on other nodes.
     *
     * @throws IllegalStateException the database could not be used (the rows stay)
     */
    public Sweep sweep() {
        int relayed = 0;
        int failed = 0;
        boolean unavailable = false;
        try {
            for (int batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
                Sweep one = relayBatch();
                relayed += one.relayed();
                failed += one.failed();
                unavailable = one.valkeyUnavailable();
                if (unavailable || one.relayed() + one.failed() < BATCH) {
                    break;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("the outbox of " + name + " cannot be read: " + e.getMessage(), e);
        } finally {
            publishGauges();
        }
        return new Sweep(relayed, failed, unavailable);
    }

    private record Row(long id, String relayKey, String queue, String payload, String lane, String idempotencyKey,
                       Integer maxAttempts, long delayMs, int priority) {

        NewJob job() {
            NewJob job = NewJob.of(payload).withIdempotencyKey(idempotencyKey != null ? idempotencyKey : RELAY_KEY_PREFIX + relayKey)
                    .withPriority(priority);
            if (lane != null) {
                job = job.inLane(lane);
            }
            if (maxAttempts != null) {
                job = job.withMaxAttempts(maxAttempts);
            }
            if (delayMs > 0) {
                // The delay counts from now, the enqueue to Valkey, not from the row's insert.
                job = job.delayedBy(Duration.ofMillis(delayMs));
            }
            return job;
        }
    }

    private Sweep relayBatch() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                List<Row> rows = lockOldest(connection);
                List<Long> sent = new ArrayList<>(rows.size());
                Map<Long, String> failures = new LinkedHashMap<>();
                boolean unavailable = false;
                for (Row row : rows) {
                    if (unavailable) {
                        failures.put(row.id(), "not tried: Valkey was unavailable for an earlier row of the sweep");
                        continue;
                    }
                    try {
                        queue.enqueue(row.queue(), row.job());
                        sent.add(row.id());
                        haltIfAsked();
                    } catch (QueueUnavailableException e) {
                        // Unavailable or outcome unknown: either way the keyed resend next sweep is safe.
                        unavailable = true;
                        failures.put(row.id(), e.toString());
                    } catch (RuntimeException e) {
                        // Refused (a node with tighter limits?) or a bug: kept and counted, never dropped.
                        LOG.log(Level.SEVERE, "EchoMQ outbox relay " + name + ": Valkey refused outbox row " + row.id()
                                + " for queue " + row.queue() + "; it stays in the outbox", e);
                        failures.put(row.id(), e.toString());
                    }
                }
                delete(connection, sent);
                markFailed(connection, failures);
                connection.commit();
                if (!failures.isEmpty()) {
                    LOG.warning("EchoMQ outbox relay " + name + ": " + failures.size() + " row(s) not relayed, kept for the next sweep: "
                            + failures.values().iterator().next());
                }
                return new Sweep(sent.size(), failures.size(), unavailable);
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                // A pooled connection goes back as it came.
                try {
                    connection.setAutoCommit(autoCommit);
                } catch (SQLException ignored) {
                    // the pool validates or drops it
                }
            }
        }
    }

    private static List<Row> lockOldest(Connection connection) throws SQLException {
        List<Row> rows = new ArrayList<>(BATCH);
        try (PreparedStatement select = connection.prepareStatement(SELECT)) {
            select.setInt(1, BATCH);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    int maxAttempts = rs.getInt(7);
                    Integer attempts = rs.wasNull() ? null : maxAttempts;
                    rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                            rs.getString(6), attempts, rs.getLong(8), rs.getInt(9)));
                }
            }
        }
        return rows;
    }

    private static void delete(Connection connection, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement delete = connection.prepareStatement(DELETE)) {
            delete.setArray(1, connection.createArrayOf("int8", ids.toArray(Long[]::new)));
            delete.executeUpdate();
        }
    }

    private static void markFailed(Connection connection, Map<Long, String> failures) throws SQLException {
        if (failures.isEmpty()) {
            return;
        }
        try (PreparedStatement update = connection.prepareStatement(FAILED)) {
            for (Map.Entry<Long, String> failure : failures.entrySet()) {
                String error = failure.getValue();
                update.setString(1, error.length() <= MAX_ERROR_CHARS ? error : error.substring(0, MAX_ERROR_CHARS) + "…");
                update.setLong(2, failure.getKey());
                update.addBatch();
            }
            update.executeBatch();
        }
    }

    private void haltIfAsked() {
        if (haltAfter != null && ENQUEUES_IN_THIS_JVM.incrementAndGet() >= haltAfter) {
            // Test only (see HALT_AFTER_ENQUEUE): no shutdown hooks, no commit, no DELETE.
            Runtime.getRuntime().halt(137);
        }
    }

    /** Depth and oldest age, for the consoles of every node; a failure only costs the gauges. */
    private void publishGauges() {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement gauges = connection.prepareStatement(GAUGES);
             ResultSet rs = gauges.executeQuery()) {
            rs.next();
            queue.publishOutbox(name, rs.getLong(1), rs.getLong(2), gaugeLifetime());
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.FINE, "EchoMQ outbox relay " + name + ": gauges not published", e);
        }
    }

    /** A few sweep intervals: gauges of an outbox no relay sweeps any more disappear soon. */
    Duration gaugeLifetime() {
        Duration fewSweeps = pollInterval.multipliedBy(4);
        return fewSweeps.compareTo(Duration.ofSeconds(5)) < 0 ? Duration.ofSeconds(5) : fewSweeps;
    }

    /** Stops sweeping, waiting briefly for a sweep under way; rows not yet relayed stay for any relay. */
    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warning("EchoMQ outbox relay " + name + ": a sweep is still running at stop; its rows stay if it does not commit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
