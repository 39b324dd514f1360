package io.echomq.effect;

import io.echomq.queue.Lease;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * Applies a job's effect exactly once: in one PostgreSQL transaction it records the job in the
 * effect store and runs the effect through the same handle. If the job is already recorded, an
 * earlier attempt applied the effect; the effect is skipped and the earlier attempt reported.
 *
 * <p>Under READ COMMITTED, an attempt racing an earlier one that still holds the key (a zombie
 * whose lease expired mid-transaction) waits on the key: if the zombie commits, this attempt
 * sees the key taken and skips; if it rolls back, this attempt applies. The wait is bounded by
 * {@link EffectSettings#lockTimeout()}.
 */
public final class EffectStore {

    /** PostgreSQL's "lock_not_available", raised when lock_timeout expires. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    private final Jdbi jdbi;
    private final EffectSettings settings;

    public EffectStore(Jdbi jdbi, EffectSettings settings) {
        this.jdbi = jdbi;
        this.settings = settings;
    }

    /**
     * Runs {@code effect} for this attempt unless an earlier attempt of the job already applied it.
     *
     * @throws EffectFailedException    the effect threw; everything was rolled back
     * @throws EffectContendedException another transaction held the job's key past lock_timeout
     */
    public EffectOutcome apply(Lease lease, Effect effect) {
        try {
            return jdbi.inTransaction(TransactionIsolationLevel.READ_COMMITTED, handle -> applyIn(handle, lease, effect));
        } catch (HandlerFailed failed) {
            throw new EffectFailedException(lease, failed.getCause());
        } catch (JdbiException e) {
            if (LOCK_NOT_AVAILABLE.equals(sqlState(e))) {
                throw new EffectContendedException(lease, settings.lockTimeout(), e);
            }
            throw e;
        }
    }

    /** The effect recorded for a job, if any attempt applied it. */
    public Optional<EffectRecord> find(String queue, String jobId) {
        return jdbi.withHandle(handle -> recorded(handle, queue, jobId));
    }

    /** The recorded effects among the given jobs of a queue, by job id (one query). */
    public java.util.Map<String, EffectRecord> findAll(String queue, java.util.Collection<String> jobIds) {
        if (jobIds.isEmpty()) {
            return java.util.Map.of();
        }
        long[] ids = jobIds.stream().mapToLong(Long::parseLong).toArray();
        return jdbi.withHandle(handle -> handle.createQuery(
                        "SELECT job_id, attempt, applied_at FROM echomq.effect WHERE queue = :queue AND job_id = ANY(:ids)")
                .bind("queue", queue)
                .bind("ids", ids)
                .map((rs, ctx) -> record(queue, rs))
                .collectToMap(EffectRecord::jobId, r -> r));
    }

    private EffectOutcome applyIn(Handle handle, Lease lease, Effect effect) {
        limitWaits(handle);
        Optional<Instant> recordedNow = handle.createQuery("""
                        INSERT INTO echomq.effect (queue, job_id, attempt) VALUES (:queue, :jobId, :attempt)
                        ON CONFLICT (queue, job_id) DO NOTHING
                        RETURNING applied_at""")
                .bind("queue", lease.queue())
                .bind("jobId", Long.parseLong(lease.jobId()))
                .bind("attempt", lease.token())
                .mapTo(Instant.class)
                .findOne();
        if (recordedNow.isEmpty()) {
            EffectRecord earlier = recorded(handle, lease.queue(), lease.jobId())
                    .orElseThrow(() -> new IllegalStateException("effect key of job " + lease.jobId() + " conflicted but has no row"));
            return new EffectOutcome.AlreadyApplied(lease, earlier);
        }
        try {
            effect.apply(handle);
        } catch (Exception e) {
            throw new HandlerFailed(e);
        }
        return new EffectOutcome.Applied(lease, new EffectRecord(lease.queue(), lease.jobId(), lease.token(), recordedNow.get()));
    }

    /**
     * One round trip for all settings; {@code is_local = true} scopes them to this transaction.
     * synchronous_commit is forced on: with it off, a crash could lose an effect whose job
     * Valkey already marked completed, and nothing would ever apply it again.
     */
    private void limitWaits(Handle handle) {
        handle.createQuery("SELECT set_config('lock_timeout', :lock, true) AS lock_timeout, "
                        + "set_config('idle_in_transaction_session_timeout', :idle, true) AS idle_timeout, "
                        + "set_config('synchronous_commit', 'on', true) AS synchronous_commit")
                .bind("lock", settings.lockTimeout().toMillis() + "ms")
                .bind("idle", settings.idleInTransactionTimeout().toMillis() + "ms")
                .mapToMap()
                .one();
    }

    private static Optional<EffectRecord> recorded(Handle handle, String queue, String jobId) {
        return handle.createQuery("SELECT job_id, attempt, applied_at FROM echomq.effect WHERE queue = :queue AND job_id = :jobId")
                .bind("queue", queue)
                .bind("jobId", Long.parseLong(jobId))
                .map((rs, ctx) -> record(queue, rs))
                .findOne();
    }

    private static EffectRecord record(String queue, java.sql.ResultSet row) throws SQLException {
        return new EffectRecord(queue, Long.toString(row.getLong("job_id")), row.getLong("attempt"),
                row.getTimestamp("applied_at").toInstant());
    }

    private static String sqlState(Throwable e) {
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
