package io.echomq.outbox;

import io.echomq.queue.NewJob;
import io.echomq.queue.OutboxDoor;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.outbox.OutboxAdmin;
import io.echomq.queue.outbox.OutboxCommand;
import io.echomq.queue.outbox.OutboxDeadRow;
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
 * own, else {@code outbox:<relay_key>}) through the outbox's door ({@link OutboxDoor}, which
 * alone admits those reserved keys), deletes the rows sent and commits. A row whose {@code flow}
 * column is set (V11) is a flow's root: the whole flow is submitted under the row's key, so a
 * resend answers the first parent and makes only the children still missing. A row that stored a
 * creation context is sent in that trace. A relay that dies
 * between an enqueue and its commit leaves the row for the next sweep, here or on another node,
 * whose enqueue Valkey answers with the first job (the key, while Valkey holds that job; past
 * retention the effect store's idempotency key, V4, still applies the effect once). Two relays
 * never take the same row at once (the row lock).
 *
 * <p>When it sweeps: at once when the transaction that wrote rows commits on this node (the
 * adapter's interposed synchronization, or the worker once a job's effect transaction that wrote
 * follow-ups committed, {@linkplain #wake() wakes} the relay: milliseconds after the commit), and
 * about every {@code echomq.outbox.poll-ms} (default 500 ms) as the fallback for rows whose node
 * died before relaying them. The relays of one table take turns at that timed sweep
 * ({@link SweepTurns}, V13): each relay's timer runs every interval, and sweeps only when it takes
 * the table's turn, so N nodes sweep about once per interval between them, not N times. No
 * LISTEN/NOTIFY: the committing node relays its own rows, and the interval bounds the wait after a
 * crash.
 *
 * <p>A row Valkey refuses (its answer about that row, not an outage) stays, with {@code refusals}
 * and {@code attempts} counted up and {@code last_error} set, and is put off until
 * {@code next_attempt_at} ({@link RetryPolicy}: later after each refusal), so the rows behind it go
 * on; after {@link RetryPolicy#maxRefusals()} refusals it is dead ({@code dead_at}): no relay takes
 * it again until an admin retries or drops it. A sweep walks the table forward by id, so it tries
 * each row at most once. When Valkey is unavailable (unreachable, out of memory, an unknown
 * outcome) the sweep stops at the first failure and marks the rest of its batch with
 * {@code attempts} and {@code last_error} only: an outage costs no row its tries. Rows are never
 * dropped but by an admin.
 *
 * <p>The WAR that shows the dead rows has no access to this database: each sweep publishes the
 * dead rows to Valkey (their count and the oldest {@value OutboxAdmin#MAX_REPORTED_ROWS},
 * {@link OutboxAdmin#publish}) and first carries out the admins' commands on them that wait there
 * ({@link OutboxAdmin#requested}), each only on a row still dead.
 *
 * <p>Sweeps run on a thread of the relay's own, not the engine's timers: a sweep waits on Valkey's
 * and PostgreSQL's timeouts when either is down, and the timers carry the lease heartbeats that
 * must not wait behind it. Each sweep also publishes the outbox's depth and oldest row's age
 * ({@link io.echomq.queue.outbox.OutboxAdmin#publishGauge}).
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
    /** Prefix of the idempotency key of a row whose request carried none; reserved, so no submitter can take it. */
    public static final String RELAY_KEY_PREFIX = "outbox:";
    private static final int MAX_ERROR_CHARS = 2_000;

    /** Relayable rows after a cursor, oldest first: not dead, not put off. */
    private static final String SELECT = "SELECT id, relay_key, queue, payload, lane, idempotency_key, max_attempts, delay_ms, priority, refusals, "
            + "flow, creation_context "
            + "FROM echomq.outbox WHERE id > ? AND dead_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= clock_timestamp()) "
            + "ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
    private static final String DELETE = "DELETE FROM echomq.outbox WHERE id = ANY(?)";
    /** Valkey could not be asked: the row keeps its tries. */
    private static final String UNAVAILABLE = "UPDATE echomq.outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?";
    /** Valkey refused the row: put off by the given ms, dead at the policy's last refusal. */
    private static final String REFUSED = "UPDATE echomq.outbox SET attempts = attempts + 1, refusals = refusals + 1, last_error = ?, "
            + "next_attempt_at = clock_timestamp() + ? * interval '1 millisecond', "
            + "dead_at = CASE WHEN refusals + 1 >= ? THEN clock_timestamp() END WHERE id = ?";
    private static final String RETRY_DEAD = "UPDATE echomq.outbox SET dead_at = NULL, refusals = 0, next_attempt_at = NULL "
            + "WHERE id = ? AND dead_at IS NOT NULL RETURNING queue";
    private static final String DROP_DEAD = "DELETE FROM echomq.outbox WHERE id = ? AND dead_at IS NOT NULL RETURNING queue, relay_key";
    private static final String GAUGES = "SELECT count(*) FILTER (WHERE dead_at IS NULL), "
            + "COALESCE((EXTRACT(EPOCH FROM clock_timestamp() - min(created_at) FILTER (WHERE dead_at IS NULL)) * 1000)::bigint, 0), "
            + "count(*) FILTER (WHERE dead_at IS NOT NULL) FROM echomq.outbox";
    private static final String OLDEST_DEAD = "SELECT id, queue, refusals, last_error, (EXTRACT(EPOCH FROM created_at) * 1000)::bigint, "
            + "(EXTRACT(EPOCH FROM dead_at) * 1000)::bigint FROM echomq.outbox WHERE dead_at IS NOT NULL ORDER BY id LIMIT ?";
    /** A dead row's error as reported to Valkey: the whole one stays in the row. */
    private static final int MAX_REPORTED_ERROR_CHARS = 500;

    private final String name;
    private final DataSource dataSource;
    private final OutboxDoor door;
    private final OutboxAdmin admin;
    private final Duration pollInterval;
    private final RetryPolicy retryPolicy;
    private final Long haltAfter = Long.getLong(HALT_AFTER_ENQUEUE);
    private final ScheduledExecutorService thread;
    /** Whose timer sweeps now, over every relay of this table. */
    private final SweepTurns turns;
    private final AtomicBoolean woken = new AtomicBoolean();
    private volatile boolean closed;
    /** The dead rows last reported, to publish again only when they change or the report nears its expiry; written by the sweeping thread. */
    private volatile DeadReport lastDeadReport;

    /** What one sweep did ({@code failed}: refused or not sent, in all). */
    public record Sweep(int relayed, int failed, boolean valkeyUnavailable) {
    }

    /**
     * How a row Valkey refuses is tried again: after {@code firstBackoff}, doubling at each
     * refusal up to {@code maxBackoff}; at the {@code maxRefusals}-th refusal it is dead. The
     * default (10 refusals, 1 s to 5 min) gives a row about 8.5 minutes, time for a rolling
     * deploy's nodes to agree on their limits again.
     */
    public record RetryPolicy(int maxRefusals, Duration firstBackoff, Duration maxBackoff) {

        public static final RetryPolicy DEFAULT = new RetryPolicy(10, Duration.ofSeconds(1), Duration.ofMinutes(5));

        public RetryPolicy {
            if (maxRefusals < 1) {
                throw new IllegalArgumentException("maxRefusals: must be at least 1, was " + maxRefusals);
            }
            if (firstBackoff == null || firstBackoff.isNegative() || maxBackoff == null || maxBackoff.compareTo(firstBackoff) < 0) {
                throw new IllegalArgumentException("firstBackoff, maxBackoff: need 0 <= firstBackoff <= maxBackoff, were "
                        + firstBackoff + " and " + maxBackoff);
            }
        }

        /** The wait after a row's {@code refusals}-th refusal (1 or more). */
        Duration backoffAfter(int refusals) {
            int doublings = Math.min(refusals - 1, 30);
            Duration backoff = firstBackoff.multipliedBy(1L << doublings);
            return backoff.compareTo(maxBackoff) > 0 || backoff.isNegative() ? maxBackoff : backoff;
        }

        boolean isLast(int refusals) {
            return refusals >= maxRefusals;
        }
    }

    private OutboxRelay(String name, DataSource dataSource, OutboxDoor door, OutboxAdmin admin, Duration pollInterval,
            RetryPolicy retryPolicy) {
        this.name = name;
        this.dataSource = dataSource;
        // Rows carry the keys the engine minted (follow-ups, outbox:<relay key>), which only the outbox's door admits.
        this.door = door;
        this.admin = admin;
        this.pollInterval = pollInterval;
        this.retryPolicy = retryPolicy;
        this.turns = new SweepTurns(dataSource, pollInterval);
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
     * @param door where rows go: one client's queues ({@code Submissions.outboxDoor()}), or an
     *             engine's ({@code QueueShards.outboxDoor()}, which routes rows into sharded queues)
     */
    public static OutboxRelay idle(String name, DataSource dataSource, OutboxDoor door, OutboxAdmin admin, Duration pollInterval) {
        return idle(name, dataSource, door, admin, pollInterval, RetryPolicy.DEFAULT);
    }

    /** As {@link #idle(String, DataSource, OutboxDoor, OutboxAdmin, Duration)}, trying refused rows by {@code retryPolicy}. */
    public static OutboxRelay idle(String name, DataSource dataSource, OutboxDoor door, OutboxAdmin admin, Duration pollInterval,
            RetryPolicy retryPolicy) {
        return new OutboxRelay(name, dataSource, door, admin, pollInterval, retryPolicy);
    }

    /**
     * A relay sweeping every {@code pollInterval} and whenever woken.
     *
     * @param door  where rows go, as for {@link #idle(String, DataSource, OutboxDoor, OutboxAdmin, Duration)}
     * @param admin where the gauges, the dead rows and the admins' commands on them are exchanged
     */
    public static OutboxRelay start(String name, DataSource dataSource, OutboxDoor door, OutboxAdmin admin, Duration pollInterval) {
        OutboxRelay relay = new OutboxRelay(name, dataSource, door, admin, pollInterval, RetryPolicy.DEFAULT);
        long ms = pollInterval.toMillis();
        relay.thread.scheduleWithFixedDelay(relay::sweepOnTurn, ms, ms, TimeUnit.MILLISECONDS);
        LOG.info("EchoMQ outbox relay started for " + name + ", sweeping every " + ms + " ms");
        return relay;
    }

    public String name() {
        return name;
    }

    /** The door the rows go through: the writers of this outbox check their rows by its rules and layouts. */
    OutboxDoor door() {
        return door;
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

    /** The timer's sweep: only when this relay takes the table's turn ({@link SweepTurns}). */
    private void sweepOnTurn() {
        if (!closed && turns.take()) {
            sweepQuietly();
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
     * Carries out the admins' commands waiting in Valkey, relays what the outbox holds now (up to
     * {@value #MAX_BATCHES_PER_SWEEP} batches, each row at most once), then publishes the gauges
     * and the dead rows. Safe beside other relays on the same table, here or on other nodes.
     *
     * @throws IllegalStateException the database could not be used (the rows stay)
     */
    public Sweep sweep() {
        int relayed = 0;
        int failed = 0;
        boolean unavailable = false;
        try {
            carryOutCommands();
            long after = 0;
            for (int batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
                Batch one = relayBatch(after);
                relayed += one.relayed();
                failed += one.failed();
                unavailable = one.valkeyUnavailable();
                after = one.lastId();
                if (unavailable || one.taken() < BATCH) {
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

    /** What one batch did; {@code lastId} is where the next batch of the sweep starts. */
    private record Batch(int taken, int relayed, int failed, boolean valkeyUnavailable, long lastId) {
    }

    /** One row; {@code flow} holds the children when the row is a flow's root (V11), else null. */
    private record Row(long id, String relayKey, String queue, String payload, String lane, String idempotencyKey,
                       Integer maxAttempts, long delayMs, int priority, int refusals, String flow, String creationContext) {

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

    private Batch relayBatch(long after) throws SQLException {
        return inLocalTransaction(connection -> {
            List<Row> rows = lockOldest(connection, after);
            List<Long> sent = new ArrayList<>(rows.size());
            Map<Long, String> notSent = new LinkedHashMap<>();
            Map<Row, String> refused = new LinkedHashMap<>();
            boolean unavailable = false;
            for (Row row : rows) {
                if (unavailable) {
                    notSent.put(row.id(), "not tried: Valkey was unavailable for an earlier row of the sweep");
                    continue;
                }
                try {
                    send(row);
                    sent.add(row.id());
                    haltIfAsked();
                } catch (QueueUnavailableException e) {
                    // Unavailable or outcome unknown: either way the keyed resend next sweep is safe, and no row is to blame.
                    unavailable = true;
                    notSent.put(row.id(), e.toString());
                } catch (RuntimeException e) {
                    // Refused (a node with tighter limits?) or a bug: put off, so the rows behind it go on; never dropped.
                    refused.put(row, e.toString());
                }
            }
            delete(connection, sent);
            markUnavailable(connection, notSent);
            markRefused(connection, refused);
            connection.commit();
            if (!notSent.isEmpty()) {
                LOG.warning("EchoMQ outbox relay " + name + ": " + notSent.size() + " row(s) not relayed, kept for the next sweep: "
                        + notSent.values().iterator().next());
            }
            refused.forEach(this::logRefusal);
            long lastId = rows.isEmpty() ? after : rows.get(rows.size() - 1).id();
            return new Batch(rows.size(), sent.size(), notSent.size() + refused.size(), unavailable, lastId);
        });
    }

    /**
     * Sends one row under its key: a plain job, or a whole flow (its root under the row's key, so
     * a row sent again answers the first flow and makes only the children still missing).
     */
    private void send(Row row) {
        if (row.flow() == null) {
            door.enqueue(row.queue(), row.job(), row.creationContext());
        } else {
            door.submitFlow(OutboxFlows.decode(row.queue(), row.job(), row.flow()), row.creationContext());
        }
    }

    private void logRefusal(Row row, String error) {
        int refusals = row.refusals() + 1;
        if (retryPolicy.isLast(refusals)) {
            LOG.severe("EchoMQ outbox relay " + name + ": Valkey refused outbox row " + row.id() + " for queue " + row.queue()
                    + " (refusal " + refusals + " of " + retryPolicy.maxRefusals() + "); the row is dead and waits for an admin to "
                    + "retry or drop it: " + error);
        } else {
            LOG.warning("EchoMQ outbox relay " + name + ": Valkey refused outbox row " + row.id() + " for queue " + row.queue()
                    + " (refusal " + refusals + " of " + retryPolicy.maxRefusals() + "), tried again in "
                    + retryPolicy.backoffAfter(refusals).toMillis() + " ms: " + error);
        }
    }

    /** Work on one connection in a local transaction of its own, rolled back if the work throws. */
    private interface LocalWork<T> {
        T run(Connection connection) throws SQLException;
    }

    private <T> T inLocalTransaction(LocalWork<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                return work.run(connection);
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

    private static List<Row> lockOldest(Connection connection, long after) throws SQLException {
        List<Row> rows = new ArrayList<>(BATCH);
        try (PreparedStatement select = connection.prepareStatement(SELECT)) {
            select.setLong(1, after);
            select.setInt(2, BATCH);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    int maxAttempts = rs.getInt(7);
                    Integer attempts = rs.wasNull() ? null : maxAttempts;
                    rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                            rs.getString(6), attempts, rs.getLong(8), rs.getInt(9), rs.getInt(10), rs.getString(11), rs.getString(12)));
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

    private static void markUnavailable(Connection connection, Map<Long, String> failures) throws SQLException {
        if (failures.isEmpty()) {
            return;
        }
        try (PreparedStatement update = connection.prepareStatement(UNAVAILABLE)) {
            for (Map.Entry<Long, String> failure : failures.entrySet()) {
                update.setString(1, cut(failure.getValue(), MAX_ERROR_CHARS));
                update.setLong(2, failure.getKey());
                update.addBatch();
            }
            update.executeBatch();
        }
    }

    private void markRefused(Connection connection, Map<Row, String> refusals) throws SQLException {
        if (refusals.isEmpty()) {
            return;
        }
        try (PreparedStatement update = connection.prepareStatement(REFUSED)) {
            for (Map.Entry<Row, String> refusal : refusals.entrySet()) {
                update.setString(1, cut(refusal.getValue(), MAX_ERROR_CHARS));
                update.setLong(2, retryPolicy.backoffAfter(refusal.getKey().refusals() + 1).toMillis());
                update.setInt(3, retryPolicy.maxRefusals());
                update.setLong(4, refusal.getKey().id());
                update.addBatch();
            }
            update.executeBatch();
        }
    }

    private static String cut(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "…";
    }

    /**
     * The admins' retries and drops of this outbox's dead rows, waiting in Valkey: applied in one
     * local transaction, each only to a row still dead, then forgotten in Valkey. Commands that
     * cannot be read wait for the next sweep; the relaying goes on.
     */
    private void carryOutCommands() throws SQLException {
        Map<Long, OutboxCommand> commands;
        try {
            commands = admin.requested(name);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "EchoMQ outbox relay " + name + ": the admins' commands cannot be read now", e);
            return;
        }
        if (commands.isEmpty()) {
            return;
        }
        List<String> done = inLocalTransaction(connection -> {
            List<String> applied = new ArrayList<>();
            for (Map.Entry<Long, OutboxCommand> command : commands.entrySet()) {
                applied.add(carryOut(connection, command.getKey(), command.getValue()));
            }
            connection.commit();
            return applied;
        });
        done.forEach(LOG::warning);
        try {
            commands.keySet().forEach(id -> admin.carriedOut(name, id));
        } catch (QueueUnavailableException e) {
            // Carried out again next sweep, to no effect: each applies only to a row still dead.
            LOG.log(Level.FINE, "EchoMQ outbox relay " + name + ": commands carried out but not yet forgotten", e);
        }
    }

    /** Applies one command; returns what it did, for the log. */
    private String carryOut(Connection connection, long id, OutboxCommand command) throws SQLException {
        String prefix = "EchoMQ outbox relay " + name + ": an admin's " + command.wireName() + " of dead outbox row " + id;
        try (PreparedStatement statement = connection.prepareStatement(command == OutboxCommand.RETRY ? RETRY_DEAD : DROP_DEAD)) {
            statement.setLong(1, id);
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    return prefix + ": no such dead row (already carried out, or the row is gone)";
                }
                return command == OutboxCommand.RETRY
                        ? prefix + " for queue " + rs.getString(1) + ": relayable again, with a fresh budget of refusals"
                        : prefix + " for queue " + rs.getString(1) + " (relay key " + rs.getString(2) + "): deleted, its job is never submitted";
            }
        }
    }

    private void haltIfAsked() {
        if (haltAfter != null && ENQUEUES_IN_THIS_JVM.incrementAndGet() >= haltAfter) {
            // Test only (see HALT_AFTER_ENQUEUE): no shutdown hooks, no commit, no DELETE.
            Runtime.getRuntime().halt(137);
        }
    }

    /**
     * Depth and oldest age of the rows waiting (dead rows wait for no relay), and the dead rows,
     * for the consoles of every node; a failure only costs the report.
     */
    private void publishGauges() {
        try (Connection connection = dataSource.getConnection()) {
            long dead;
            try (PreparedStatement gauges = connection.prepareStatement(GAUGES);
                 ResultSet rs = gauges.executeQuery()) {
                rs.next();
                admin.publishGauge(name, rs.getLong(1), rs.getLong(2), gaugeLifetime());
                dead = rs.getLong(3);
            }
            publishDeadRows(connection, dead);
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.FINE, "EchoMQ outbox relay " + name + ": gauges not published", e);
        }
    }

    /** The dead rows last published: the same again is published only when the report is half its lifetime old. */
    private record DeadReport(long count, List<OutboxDeadRow> oldest, long publishedAtNanos) {
    }

    private void publishDeadRows(Connection connection, long count) throws SQLException {
        List<OutboxDeadRow> oldest = count == 0 ? List.of() : oldestDead(connection);
        long now = System.nanoTime();
        DeadReport last = lastDeadReport;
        if (last != null && last.count() == count && last.oldest().equals(oldest)
                && now - last.publishedAtNanos() < gaugeLifetime().toNanos() / 2) {
            return;
        }
        admin.publishDeadRows(name, count, oldest, gaugeLifetime());
        lastDeadReport = new DeadReport(count, oldest, now);
    }

    private static List<OutboxDeadRow> oldestDead(Connection connection) throws SQLException {
        List<OutboxDeadRow> rows = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(OLDEST_DEAD)) {
            select.setInt(1, OutboxAdmin.MAX_REPORTED_ROWS);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    String error = rs.getString(4);
                    rows.add(new OutboxDeadRow(rs.getLong(1), rs.getString(2), rs.getInt(3),
                            error == null ? "" : cut(error, MAX_REPORTED_ERROR_CHARS), rs.getLong(5), rs.getLong(6)));
                }
            }
        }
        return rows;
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
