package io.echomq.effect;

import io.echomq.queue.Flows;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.Lease;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * Applies a job's effect exactly once: in one PostgreSQL transaction it records the job in the
 * effect store and runs the effect through the same handle. If the job is already recorded, an
 * earlier attempt applied the effect; the effect is skipped and the earlier attempt reported.
 *
 * <p>A job is named by its queue, id and creation time: ids can be handed out again after a
 * Valkey failover, and a new job with an old id must not be taken for the old one. A row
 * recorded before the key held the creation time (0 there) stands for any job with its id.
 *
 * <p>A job submitted with an idempotency key records the key with its effect. Another job with
 * the same key, created less than {@link EffectSettings#idempotencyWindow()} after the first,
 * is the same submission again (Valkey answers such a resubmission with the first job only
 * while it still holds the first job and its key; a failover can lose both after the job ran):
 * its handler is skipped and the first job's effect reported.
 *
 * <p>Under READ COMMITTED, an attempt racing an earlier one that still holds the key (a zombie
 * whose lease expired mid-transaction) waits on the key: if the zombie commits, this attempt
 * sees the key taken and skips; if it rolls back, this attempt applies. The wait is bounded by
 * {@link EffectSettings#lockTimeout()}.
 */
public final class EffectStore {

    /**
     * Scopes the transaction's wait limits (see {@link #record}); filled in once per store with
     * its own settings (numbers in milliseconds, never outside input).
     */
    private static final String LIMITS = """
            WITH limits AS MATERIALIZED (
                SELECT set_config('lock_timeout', '%dms', true) AS lock_timeout,
                       set_config('idle_in_transaction_session_timeout', '%dms', true) AS idle_timeout,
                       set_config('synchronous_commit', 'on', true) AS synchronous_commit)
            """;

    /**
     * {@link #record}'s statement after the limits, with the jobs' (id, creation ms, attempt,
     * idempotency key) from {@link #ONE_JOB} or {@link #JOBS} in place of {@code %s}.
     * Parameters: queue, the four of the jobs, queue. The per-job mode's every transaction starts
     * with it, so it goes through plain JDBC: JDBI's per-statement work (binding by name,
     * argument lookups, result mapping) cost more JVM time than the round trip. The conflict
     * has no target: a row is skipped when its job's key is taken. {@code %s} after it holds
     * {@link #KEY_FREE} for jobs with an idempotency key, else nothing.
     */
    private static final String RECORD = """
            INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt, idempotency_key)
            SELECT ?, job.id, job.created, job.attempt, job.idempotency_key
            FROM limits, %s AS job (id, created, attempt, idempotency_key)
            WHERE NOT EXISTS (SELECT 1 FROM echomq.effect
                              WHERE queue = ? AND job_id = job.id AND job_created_ms = 0)%s
            ORDER BY job.id
            ON CONFLICT DO NOTHING
            RETURNING job_id, applied_at""";
    /**
     * {@link #RECORD}'s condition for jobs with an idempotency key (one more parameter: queue): no
     * row of the queue carries the key. No unique index can say it on the partitioned table (V12);
     * the caller holds the keys' locks ({@link #LOCK_KEYS}), taken by an earlier statement, so this
     * one sees every row that committed with a key before.
     */
    private static final String KEY_FREE = """

              AND (job.idempotency_key IS NULL OR NOT EXISTS (SELECT 1 FROM echomq.effect k
                                                               WHERE k.queue = ? AND k.idempotency_key = job.idempotency_key))""";
    /** One job as plain values: they encode faster than arrays. */
    private static final String ONE_JOB = "(VALUES (?::bigint, ?::bigint, ?::bigint, ?::text))";
    private static final String JOBS = "unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::text[])";

    /**
     * Frees the idempotency keys of these jobs (parameters: keys, creation times, queue, window
     * ms) from rows of jobs created a whole window or more before them: such a job is another
     * submission that reuses the key, not the same one again. The row itself stays: it is its
     * own job's record. The limits bound a wait on a row another transaction is freeing too.
     */
    private static final String FREE_EXPIRED_KEYS = """
            UPDATE echomq.effect e SET idempotency_key = NULL
            FROM limits, unnest(?::text[], ?::bigint[]) AS job (idempotency_key, created)
            WHERE e.queue = ? AND e.idempotency_key = job.idempotency_key
              AND e.job_created_ms <= job.created - ?""";

    /**
     * Takes the transaction-scoped advisory lock of each idempotency key (parameters: queue, keys),
     * in one order so that two batches wait on each other instead of deadlocking. The key's
     * uniqueness among a queue's rows rests on it: the effect table is partitioned by job creation
     * time and no unique index can span its partitions (V12), so a transaction holds the key's lock
     * while it looks for a row carrying the key and records its own, and a second one with the
     * same key waits until the first commits or rolls back, then sees its row, or none. The look
     * must be a later statement than the lock: a statement sees only what committed before it began.
     */
    private static final String LOCK_KEYS = """
            SELECT count(pg_advisory_xact_lock(hashtext(?), key.lock))
            FROM limits, (SELECT DISTINCT hashtext(k) AS lock FROM unnest(?::text[]) AS k ORDER BY 1) AS key""";

    /** The handlers' results into their jobs' rows (parameters: ids, creation times, results as JSON text, queue). */
    private static final String RECORD_RESULTS = """
            UPDATE echomq.effect e SET result = job.result::jsonb
            FROM unnest(?::bigint[], ?::bigint[], ?::text[]) AS job (id, created, result)
            WHERE e.queue = ? AND e.job_id = job.id AND e.job_created_ms = job.created""";

    /**
     * One JSON-P provider for every result read (looking it up per call is slow), found on the
     * first read: a runtime that never reads a result needs no JSON-P implementation.
     */
    private static final class ResultJson {
        static final JsonProvider PROVIDER = JsonProvider.provider();
    }

    /** PostgreSQL's "lock_not_available", raised when lock_timeout expires. */
    static final String LOCK_NOT_AVAILABLE = "55P03";

    private final EffectTransactions transactions;
    private final EffectSettings settings;
    /** {@link #LIMITS} with this store's settings. */
    private final String limits;
    /** {@link #RECORD} after them, for one job and for many, made once: the driver finds its prepared statement by this text. */
    private final String recordOne;
    private final String recordMany;
    /** The same with {@link #KEY_FREE}, for jobs with an idempotency key. */
    private final String recordOneKeyed;
    private final String recordManyKeyed;
    /** {@link #FREE_EXPIRED_KEYS} after the limits. */
    private final String freeExpiredKeys;
    /** {@link #LOCK_KEYS} after the limits. */
    private final String lockKeys;

    /** A store whose effect transactions are local ones on {@code jdbi}'s data source. */
    public EffectStore(Jdbi jdbi, EffectSettings settings) {
        this(EffectTransactions.local(jdbi), settings);
    }

    public EffectStore(EffectTransactions transactions, EffectSettings settings) {
        this.transactions = transactions;
        this.settings = settings;
        this.limits = LIMITS.formatted(settings.lockTimeout().toMillis(), settings.idleInTransactionTimeout().toMillis());
        this.recordOne = limits + RECORD.formatted(ONE_JOB, "");
        this.recordMany = limits + RECORD.formatted(JOBS, "");
        this.recordOneKeyed = limits + RECORD.formatted(ONE_JOB, KEY_FREE);
        this.recordManyKeyed = limits + RECORD.formatted(JOBS, KEY_FREE);
        this.freeExpiredKeys = limits + FREE_EXPIRED_KEYS;
        this.lockKeys = limits + LOCK_KEYS;
    }

    /**
     * This store with every statement given up after {@code limit}
     * ({@link EffectTransactions#withQueryTimeout}): for maintenance, whose reads and deletes must
     * never wait on the database for long. Workers keep the unbounded store: a handler's effect
     * may take its time, and its key wait is bounded by {@code lock_timeout}.
     */
    public EffectStore withQueryTimeout(Duration limit) {
        return new EffectStore(transactions.withQueryTimeout(limit), settings);
    }

    /** The effect table's time partitions, through this store's transactions (and their query timeout). */
    public EffectPartitions partitions() {
        return new EffectPartitions(transactions);
    }

    /**
     * The age bound is {@code now()}, the statement's start in autocommit: stable within the
     * statement, so the index scan stops at it. With {@code clock_timestamp()}, volatile, it was a
     * filter: a batch that found fewer rows than its limit read on through every younger row.
     */
    private static final String APPLIED_BEFORE = """
            SELECT job_id, job_created_ms, attempt, applied_at FROM echomq.effect_default
            WHERE queue = :queue AND applied_at <= now() - make_interval(secs => :ageMs / 1000.0)
              AND (applied_at, job_id) > (:afterAt, :afterId)
            ORDER BY applied_at, job_id LIMIT :limit""";

    /** The statement that finds the rows past their age ({@link #appliedBefore}), for the test that holds its plan to its cost. */
    static String appliedBeforeStatement() {
        return APPLIED_BEFORE;
    }

    /** The statement that records a batch's rows ({@link #RECORD}'s parameters), for the test that holds its plan to its cost. */
    String recordManyStatement() {
        return recordMany;
    }

    /**
     * The statement that opens every per-job effect transaction, with this store's wait limits
     * (parameters: queue, job id, creation ms, attempt, idempotency key, queue): for the benchmark,
     * whose pgbench ceiling must run the engine's own SQL, never a copy that drifts from it.
     */
    public String recordOneStatement() {
        return recordOne;
    }

    /**
     * Runs {@code effect} for this attempt unless an earlier attempt of the job already applied it.
     *
     * @throws EffectFailedException    the effect threw; everything was rolled back
     * @throws EffectContendedException another transaction held the job's key past lock_timeout
     */
    public EffectOutcome apply(Lease lease, Effect effect) {
        return applyAll(List.of(lease), (tx, recorded) -> effect.apply(tx)).get(0);
    }

    /**
     * Runs {@code effect} once, in one transaction, for those of the leases (all of one queue)
     * whose job no earlier attempt applied; the others are reported as already applied. All or
     * nothing: if the effect throws or a key stays held past lock_timeout, no job of the batch
     * is recorded.
     *
     * @return one outcome per lease, in the order given
     * @throws EffectFailedException    the effect threw; everything was rolled back
     * @throws EffectContendedException another transaction held one of the keys past lock_timeout
     */
    public List<EffectOutcome> applyAll(List<Lease> leases, BatchEffect effect) {
        if (leases.isEmpty()) {
            return List.of();
        }
        String queue = leases.get(0).queue();
        if (leases.stream().anyMatch(l -> !l.queue().equals(queue))) {
            throw new IllegalArgumentException("a batch holds jobs of one queue, got " + leases);
        }
        leases.stream().filter(l -> l.jobCreatedMs() <= 0).findFirst().ifPresent(l -> {
            // 0 would write a row that stands for every job with this id.
            throw new IllegalArgumentException("jobCreatedMs of job " + l.jobId() + " must be positive, was " + l.jobCreatedMs());
        });
        try {
            // Isolation is the connection's (PostgreSQL's default READ COMMITTED, which the pool
            // also sets): asking for it per transaction would cost a round trip to read it back.
            return transactions.inTransaction(handle -> applyIn(handle, queue, leases, effect));
        } catch (HandlerFailed failed) {
            throw new EffectFailedException(leases.get(0), failed.getCause());
        } catch (JdbiException e) {
            if (LOCK_NOT_AVAILABLE.equals(sqlState(e))) {
                throw new EffectContendedException(leases.get(0), settings.lockTimeout(), e);
            }
            throw e;
        }
    }

    /**
     * The effect that stands for a job, if any: the one an attempt of the job applied, else the
     * one another job with the same idempotency key, created less than the idempotency window
     * before it, applied (the job's handler will not run, or did not). This is the one rule for
     * which row stands for a job; the worker, the reconciler and the job view all go by it.
     */
    public Optional<EffectRecord> find(JobIdentity job) {
        return Optional.ofNullable(findFor(job.queue(), List.of(job)).get(job.jobId()));
    }

    /**
     * {@link #find} for many jobs of one queue in one query.
     *
     * @return the effect that stands for each job that has one, by job id
     */
    public Map<String, EffectRecord> findFor(String queue, List<JobIdentity> jobs) {
        if (jobs.isEmpty()) {
            return Map.of();
        }
        return transactions.withHandle(handle -> recordedFor(handle, queue, jobs));
    }

    /**
     * The rows that stand for these jobs, by the jobs' ids: the one with the job's creation time,
     * else one recorded before keys held it, else the row of another job that carries the job's
     * idempotency key and was created less than the window before it.
     */
    private Map<String, EffectRecord> recordedFor(Handle handle, String queue, List<JobIdentity> jobs) {
        return standingFor(handle, queue, jobs, rs -> record(queue, rs));
    }

    /**
     * The result of the effect that stands for {@code job} ({@link #find}'s rule): the JSON its
     * handler set with {@code JobContext.result}, committed with that effect. Empty when no effect
     * stands for the job yet, or its handler set no result.
     */
    public Optional<JsonValue> result(JobIdentity job) {
        return transactions.withHandle(handle -> resultsIn(handle, List.of(job)).getOrDefault(job, Optional.empty()));
    }

    /**
     * {@link #result} of each of {@code jobs} (of any queues), read in {@code transaction}: a flow
     * parent's handler reads its children's results in its own effect transaction.
     *
     * @return every job's result, empty where it has none
     */
    public Map<JobIdentity, Optional<JsonValue>> resultsIn(Handle transaction, List<JobIdentity> jobs) {
        Map<JobIdentity, Optional<JsonValue>> results = new LinkedHashMap<>();
        jobs.stream().collect(Collectors.groupingBy(JobIdentity::queue, LinkedHashMap::new, Collectors.toList())).forEach((queue, ofQueue) -> {
            Map<String, Optional<String>> stored = standingFor(transaction, queue, ofQueue, rs -> Optional.ofNullable(rs.getString("result")));
            ofQueue.forEach(job -> results.put(job, stored.getOrDefault(job.jobId(), Optional.empty()).map(EffectStore::parsed)));
        });
        return results;
    }

    /**
     * The flow parent each of these rows names, by the row's job id: a flow child's row carries
     * the idempotency key its parent derived for it ({@code Flows.childKey}). Rows of other jobs
     * are left out.
     */
    public Map<String, JobIdentity> flowParentsOf(String queue, List<EffectRecord> rows) {
        if (rows.isEmpty()) {
            return Map.of();
        }
        return transactions.withHandle(handle -> handle.createQuery("""
                        SELECT e.job_id, e.idempotency_key FROM echomq.effect e
                        JOIN unnest(:ids, :created) AS job (id, created) ON e.job_id = job.id AND e.job_created_ms = job.created
                        WHERE e.queue = :queue AND e.idempotency_key LIKE 'flow:%'""")
                .bind("queue", queue)
                .bind("ids", rows.stream().mapToLong(r -> Long.parseLong(r.jobId())).toArray())
                .bind("created", rows.stream().mapToLong(EffectRecord::jobCreatedMs).toArray())
                .map((rs, ctx) -> Map.entry(Long.toString(rs.getLong("job_id")), Flows.parentOfChildKey(rs.getString("idempotency_key"))))
                .stream()
                .filter(e -> e.getValue().isPresent())
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().orElseThrow())));
    }

    private static JsonValue parsed(String json) {
        try (JsonReader reader = ResultJson.PROVIDER.createReader(new StringReader(json))) {
            return reader.readValue();
        }
    }

    /**
     * Writes the handlers' results into the effect rows of their jobs, in the transaction that
     * recorded those rows (after the handler returned, before the commit): the result commits
     * with the effect or not at all.
     *
     * @param results each job's result as JSON text (already bounded by the worker)
     */
    public void recordResults(Handle transaction, Map<Lease, String> results) {
        if (results.isEmpty()) {
            return;
        }
        List<Lease> leases = List.copyOf(results.keySet());
        Connection connection = transaction.getConnection();
        try (PreparedStatement update = connection.prepareStatement(RECORD_RESULTS)) {
            update.setArray(1, connection.createArrayOf("bigint", leases.stream().map(l -> Long.valueOf(l.jobId())).toArray()));
            update.setArray(2, connection.createArrayOf("bigint", leases.stream().map(Lease::jobCreatedMs).toArray()));
            update.setArray(3, connection.createArrayOf("text", leases.stream().map(results::get).toArray()));
            update.setString(4, leases.get(0).queue());
            int written = update.executeUpdate();
            if (written != leases.size()) {
                throw new IllegalStateException("results of " + leases.size() + " jobs found " + written + " effect rows of this transaction");
            }
        } catch (SQLException e) {
            throw new UnableToExecuteStatementException(e, null);
        }
    }

    /** What one row of {@link #standingFor} is read as. */
    @FunctionalInterface
    private interface StandingRow<T> {
        T read(ResultSet row) throws SQLException;
    }

    private <T> Map<String, T> standingFor(Handle handle, String queue, List<JobIdentity> jobs, StandingRow<T> read) {
        long[] ids = new long[jobs.size()];
        long[] created = new long[jobs.size()];
        String[] keys = new String[jobs.size()];
        for (int i = 0; i < jobs.size(); i++) {
            ids[i] = Long.parseLong(jobs.get(i).jobId());
            created[i] = jobs.get(i).createdMs();
            keys[i] = jobs.get(i).idempotencyKey();
        }
        return handle.createQuery("""
                        SELECT DISTINCT ON (job.id) job.id AS for_job, e.job_id, e.job_created_ms, e.attempt, e.applied_at,
                               e.result::text AS result
                        FROM unnest(:ids, :created, :keys) AS job (id, created, idempotency_key)
                        JOIN echomq.effect e ON e.queue = :queue
                          AND ((e.job_id = job.id AND e.job_created_ms IN (job.created, 0))
                               OR (e.idempotency_key = job.idempotency_key AND e.job_created_ms > job.created - :window))
                        ORDER BY job.id, e.job_id = job.id AND e.job_created_ms IN (job.created, 0) DESC, e.job_created_ms DESC""")
                .bind("queue", queue)
                .bind("ids", ids)
                .bind("created", created)
                .bind("keys", keys)
                .bind("window", settings.idempotencyWindow().toMillis())
                .map((rs, ctx) -> Map.entry(Long.toString(rs.getLong("for_job")), read.read(rs)))
                .collectToMap(Map.Entry::getKey, Map.Entry::getValue);
    }

    /**
     * Up to {@code limit} effect rows of {@code queue} in the DEFAULT partition applied at least
     * {@code age} ago (on the database's clock), in the order (applied at, job id), after the row
     * {@code after} (null: from the oldest): candidates for retention, which must first ask Valkey
     * about their jobs. The rows of the time partitions go with their partition
     * ({@link EffectPartitions#retire}); only the DEFAULT partition's are deleted one by one.
     */
    public List<EffectRecord> appliedBefore(String queue, Duration age, EffectRecord after, int limit) {
        return transactions.withHandle(handle -> handle.createQuery(APPLIED_BEFORE)
                .bind("queue", queue)
                .bind("ageMs", age.toMillis())
                .bind("afterAt", java.sql.Timestamp.from(after == null ? Instant.EPOCH : after.appliedAt()))
                .bind("afterId", after == null ? Long.MIN_VALUE : Long.parseLong(after.jobId()))
                .bind("limit", limit)
                .map((rs, ctx) -> record(queue, rs))
                .list());
    }

    /**
     * How long ago, on the database's clock, the queue's oldest effect row was applied; empty when
     * the queue has none. One step into the retention walk's index: the metrics read it at each
     * scrape to show whether the effect retention keeps up.
     */
    public Optional<Duration> oldestRowAge(String queue) {
        return transactions.withHandle(handle -> handle.createQuery("""
                        SELECT (extract(epoch FROM now() - applied_at) * 1000)::bigint FROM echomq.effect
                        WHERE queue = :queue ORDER BY applied_at, job_id LIMIT 1""")
                .bind("queue", queue)
                .mapTo(Long.class)
                .findOne()
                .map(Duration::ofMillis));
    }

    /**
     * Deletes these effect rows (each by its job id and the creation time it names).
     * Only for jobs that can never be delivered again: the caller checked that Valkey no longer
     * holds them unfinished.
     *
     * @return how many rows went
     */
    public int forget(String queue, List<EffectRecord> rows) {
        if (rows.isEmpty()) {
            return 0;
        }
        return transactions.withHandle(handle -> handle.createUpdate("""
                        DELETE FROM echomq.effect e
                        USING unnest(:ids, :created) AS job (id, created)
                        WHERE e.queue = :queue AND e.job_id = job.id AND e.job_created_ms = job.created""")
                .bind("queue", queue)
                .bind("ids", rows.stream().mapToLong(r -> Long.parseLong(r.jobId())).toArray())
                .bind("created", rows.stream().mapToLong(EffectRecord::jobCreatedMs).toArray())
                .execute());
    }

    private List<EffectOutcome> applyIn(Handle handle, String queue, List<Lease> leases, BatchEffect effect) {
        List<Lease> keyed = leases.stream().filter(l -> l.idempotencyKey() != null).toList();
        // Jobs without a key (the hot path) pay no extra round trip.
        if (!keyed.isEmpty()) {
            lockKeys(handle, queue, keyed);
        }
        Map<String, Instant> recordedNow = record(handle, queue, lowestPerKey(leases));
        // Rare: a job whose idempotency key a row already holds. Only when that row's job is a
        // whole window older is the key freed and taken.
        List<Lease> keyTaken = keyed.stream().filter(l -> !recordedNow.containsKey(l.jobId())).toList();
        if (!keyTaken.isEmpty() && freeExpiredKeys(handle, queue, keyTaken) > 0) {
            recordedNow.putAll(record(handle, queue, lowestPerKey(keyTaken)));
        }
        List<Lease> recorded = leases.stream()
                .filter(l -> recordedNow.containsKey(l.jobId()))
                .sorted(Comparator.comparingLong(l -> Long.parseLong(l.jobId())))
                .toList();
        Map<String, EffectRecord> earlier = recorded.size() == leases.size() ? Map.of()
                : recordedFor(handle, queue, leases.stream().filter(l -> !recordedNow.containsKey(l.jobId())).map(Lease::identity).toList());
        if (!recorded.isEmpty()) {
            try {
                effect.apply(handle, recorded);
            } catch (Exception e) {
                throw new HandlerFailed(e);
            }
        }
        List<EffectOutcome> outcomes = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            Instant appliedAt = recordedNow.get(lease.jobId());
            if (appliedAt != null) {
                outcomes.add(new EffectOutcome.Applied(lease,
                        new EffectRecord(queue, lease.jobId(), lease.jobCreatedMs(), lease.token(), appliedAt)));
            } else {
                EffectRecord before = earlier.get(lease.jobId());
                if (before == null) {
                    throw new IllegalStateException("effect key or idempotency key of job " + lease.jobId() + " conflicted but has no row");
                }
                outcomes.add(new EffectOutcome.AlreadyApplied(lease, before));
            }
        }
        return outcomes;
    }

    /**
     * Records the jobs' effect keys, set-wise, and returns the ones recorded by this
     * transaction. The same round trip scopes the transaction's wait limits: the MATERIALIZED
     * CTE is evaluated before the first row is inserted, so lock_timeout already bounds a wait
     * on a key another transaction holds. synchronous_commit is forced on: with it off, a crash
     * could lose an effect whose job Valkey already marked completed, and nothing would ever
     * apply it again. Keys are taken in job-id order, so two batches that overlap (a zombie's
     * and its successor's) wait on each other instead of deadlocking. Idempotency keys were
     * locked before, in an order of their own ({@link #LOCK_KEYS}), and a job with a key is
     * recorded only when no row carries the key ({@link #KEY_FREE}). A job whose id has a row
     * from before keys held the creation time is not recorded again: that row is its effect
     * (no such row is written any more, so reading it races with nothing).
     */
    private Map<String, Instant> record(Handle handle, String queue, List<Lease> leases) {
        if (leases.isEmpty()) {
            return new HashMap<>();
        }
        Connection connection = handle.getConnection();
        boolean keyed = leases.stream().anyMatch(l -> l.idempotencyKey() != null);
        String statement = leases.size() == 1 ? (keyed ? recordOneKeyed : recordOne) : (keyed ? recordManyKeyed : recordMany);
        try (PreparedStatement insert = connection.prepareStatement(statement)) {
            insert.setString(1, queue);
            if (leases.size() == 1) {
                Lease lease = leases.get(0);
                insert.setLong(2, Long.parseLong(lease.jobId()));
                insert.setLong(3, lease.jobCreatedMs());
                insert.setLong(4, lease.token());
                insert.setString(5, lease.idempotencyKey());
            } else {
                insert.setArray(2, connection.createArrayOf("bigint", leases.stream().map(l -> Long.valueOf(l.jobId())).toArray()));
                insert.setArray(3, connection.createArrayOf("bigint", leases.stream().map(Lease::jobCreatedMs).toArray()));
                insert.setArray(4, connection.createArrayOf("bigint", leases.stream().map(Lease::token).toArray()));
                insert.setArray(5, connection.createArrayOf("text", leases.stream().map(Lease::idempotencyKey).toArray()));
            }
            insert.setString(6, queue);
            if (keyed) {
                insert.setString(7, queue);
            }
            Map<String, Instant> recorded = new HashMap<>();
            try (ResultSet rows = insert.executeQuery()) {
                while (rows.next()) {
                    recorded.put(Long.toString(rows.getLong(1)), rows.getTimestamp(2).toInstant());
                }
            }
            return recorded;
        } catch (SQLException e) {
            // No statement context: the driver's message names what failed.
            throw new UnableToExecuteStatementException(e, null);
        }
    }

    /** Takes the advisory locks of these jobs' idempotency keys ({@link #LOCK_KEYS}), waiting at most lock_timeout. */
    private void lockKeys(Handle handle, String queue, List<Lease> keyed) {
        Connection connection = handle.getConnection();
        try (PreparedStatement lock = connection.prepareStatement(lockKeys)) {
            lock.setString(1, queue);
            lock.setArray(2, connection.createArrayOf("text", keyed.stream().map(Lease::idempotencyKey).toArray()));
            lock.executeQuery().close();
        } catch (SQLException e) {
            throw new UnableToExecuteStatementException(e, null);
        }
    }

    /**
     * The leases whose job may record its row, as the unique index chose before V12: those without
     * an idempotency key, and of those with one, the lowest job id per key. Whether a row of the
     * queue already carries the key is the record's to see ({@link #KEY_FREE}).
     */
    private static List<Lease> lowestPerKey(List<Lease> leases) {
        if (leases.stream().allMatch(l -> l.idempotencyKey() == null)) {
            return leases;
        }
        Set<String> seen = new HashSet<>();
        return leases.stream()
                .sorted(Comparator.comparingLong(l -> Long.parseLong(l.jobId())))
                .filter(l -> l.idempotencyKey() == null || seen.add(l.idempotencyKey()))
                .toList();
    }

    /** Runs {@link #FREE_EXPIRED_KEYS} for these jobs, which all carry an idempotency key; returns how many keys it freed. */
    private int freeExpiredKeys(Handle handle, String queue, List<Lease> keyed) {
        Connection connection = handle.getConnection();
        try (PreparedStatement free = connection.prepareStatement(freeExpiredKeys)) {
            free.setArray(1, connection.createArrayOf("text", keyed.stream().map(Lease::idempotencyKey).toArray()));
            free.setArray(2, connection.createArrayOf("bigint", keyed.stream().map(Lease::jobCreatedMs).toArray()));
            free.setString(3, queue);
            free.setLong(4, settings.idempotencyWindow().toMillis());
            return free.executeUpdate();
        } catch (SQLException e) {
            throw new UnableToExecuteStatementException(e, null);
        }
    }

    static EffectRecord record(String queue, ResultSet row) throws SQLException {
        return new EffectRecord(queue, Long.toString(row.getLong("job_id")), row.getLong("job_created_ms"), row.getLong("attempt"),
                row.getTimestamp("applied_at").toInstant());
    }

    static String sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return sql.getSQLState();
            }
        }
        return null;
    }

    /** Carries the handler's own exception out of the transaction callback, which rolls back. */
    private static final class HandlerFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HandlerFailed(Exception cause) {
            super(cause);
        }
    }
}
