package io.echomq.effect;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;

/**
 * The effect table's partitions by job creation time (RANGE on {@code job_created_ms}, V12): it
 * makes them ahead of need, reads one partition's rows for the effect retention's census, and
 * retires a partition whole.
 *
 * <p>Invariant: a row never disappears while it may still be asked for. {@link #retire} detaches
 * the partition, puts the rows the caller names as still needed back into the table (no time
 * partition takes their range any more, so they land in the DEFAULT partition) and drops the
 * partition, in one transaction: a reader sees every row where it was, or where it is after, and
 * never a moment between. Detaching takes the table's ACCESS EXCLUSIVE lock, so effect transactions
 * wait for the retirement (milliseconds: it copies only the few rows still needed) and the
 * retirement waits for the effect transactions in flight; that wait is bounded by
 * {@link #RETIRE_LOCK_WAIT}, after which the retirement gives up and is tried again.
 *
 * <p>Every change of the partition set runs under one advisory lock, so engines that do this at
 * once take turns and each sees the set the previous one left.
 */
public final class EffectPartitions {

    /**
     * The longest a retirement or a new partition waits for a lock before giving up until a later
     * run: effect transactions that come after it queue behind its request, so this is also the
     * longest they wait for it.
     */
    static final Duration RETIRE_LOCK_WAIT = Duration.ofMillis(200);
    /** Serialises changes of the partition set across engines ("echomq-effect-partitions" in a number). */
    private static final long PARTITION_SET_LOCK = 0x6563_686f_7061_7274L;
    /** The columns, in the table's order, for copying rows back. */
    private static final String COLUMNS = "queue, job_id, attempt, applied_at, job_created_ms, idempotency_key, result";
    private static final Pattern RANGE = Pattern.compile("FOR VALUES FROM \\((.+?)\\) TO \\((.+?)\\)");

    /**
     * One time partition: the jobs created in [fromMs, toMs) on Valkey's clock. The partition the
     * migration made of the old table starts at {@link Long#MIN_VALUE} (MINVALUE).
     */
    public record Range(String name, long fromMs, long toMs) {
    }

    private final EffectTransactions transactions;
    private final Duration lockWait;

    public EffectPartitions(EffectTransactions transactions) {
        this(transactions, RETIRE_LOCK_WAIT);
    }

    /** Partitions whose changes wait {@code lockWait} at most for the table's lock (tests hold it longer on purpose). */
    EffectPartitions(EffectTransactions transactions, Duration lockWait) {
        this.transactions = transactions;
        this.lockWait = lockWait;
    }

    /** The time partitions (the DEFAULT one left out), oldest first. */
    public List<Range> ranges() {
        return transactions.withHandle(EffectPartitions::rangesIn);
    }

    /** The database's clock in milliseconds: the clock the retention age is measured on. */
    public long nowMs() {
        return transactions.withHandle(h -> h.createQuery("SELECT (extract(epoch FROM now()) * 1000)::bigint").mapTo(Long.class).one());
    }

    /**
     * Makes partitions of {@code width} until they cover creation times up to {@code aheadMs}, each
     * following the newest one. When the newest ends before {@code startMs} (none made yet, or
     * none for a while), the next starts at {@code startMs}: the creation times before it stay with
     * the DEFAULT partition, which may already hold rows of them, and a new partition must take
     * none of its rows.
     *
     * @return the partitions made
     */
    public List<Range> makeAhead(long startMs, long aheadMs, Duration width) {
        long widthMs = width.toMillis();
        if (widthMs <= 0) {
            throw new IllegalArgumentException("partition width must be at least 1 ms, was " + width);
        }
        return unlessBusy(() -> transactions.inTransaction(handle -> {
            waitAtMost(handle, lockWait);
            lockPartitionSet(handle);
            long next = rangesIn(handle).stream().mapToLong(Range::toMs).max().orElse(Long.MIN_VALUE);
            next = Math.max(next, startMs);
            List<Range> made = new ArrayList<>();
            while (next < aheadMs) {
                Range range = new Range("effect_p" + next, next, next + widthMs);
                attach(handle, range);
                made.add(range);
                next = range.toMs();
            }
            return made;
        }));
    }

    /**
     * Up to {@code limit} rows of {@code partition} after {@code after} (null: from the first), in
     * the order of the primary key (queue, job id, creation ms).
     */
    public List<EffectRecord> rowsOf(Range partition, EffectRecord after, int limit) {
        return transactions.withHandle(handle -> handle.createQuery("""
                        SELECT queue, job_id, job_created_ms, attempt, applied_at FROM echomq.%s
                        WHERE (queue, job_id, job_created_ms) > (:queue, :jobId, :created)
                        ORDER BY queue, job_id, job_created_ms LIMIT :limit""".formatted(quoted(partition.name())))
                .bind("queue", after == null ? "" : after.queue())
                .bind("jobId", after == null ? Long.MIN_VALUE : Long.parseLong(after.jobId()))
                .bind("created", after == null ? Long.MIN_VALUE : after.jobCreatedMs())
                .bind("limit", limit)
                .map((rs, ctx) -> EffectStore.record(rs.getString("queue"), rs))
                .list());
    }

    /**
     * Retires {@code partition} in one transaction: detaches it, copies back into the table the
     * rows in {@code keep} and every row applied after {@code appliedSince} (a row whose effect
     * committed after the caller looked at it, or too recently to go), then drops it. A partition
     * already gone (another engine retired it) is left alone.
     *
     * @return how many rows were put back; empty when the partition was already gone
     */
    public Optional<Integer> retire(Range partition, List<EffectRecord> keep, Instant appliedSince) {
        return unlessBusy(() -> transactions.inTransaction(handle -> {
            waitAtMost(handle, lockWait);
            lockPartitionSet(handle);
            if (rangesIn(handle).stream().noneMatch(r -> r.name().equals(partition.name()))) {
                return Optional.<Integer>empty();
            }
            String table = "echomq." + quoted(partition.name());
            handle.execute("ALTER TABLE echomq.effect DETACH PARTITION " + table);
            // The recent rows are found per queue through the (queue, applied_at) index: the table
            // stays locked while this runs, so it must not read the whole partition.
            int keptBack = handle.createUpdate("""
                            INSERT INTO echomq.effect (%1$s)
                            SELECT %3$s FROM %2$s p JOIN unnest(:queues, :ids, :created) AS k (queue, id, created)
                              ON p.queue = k.queue AND p.job_id = k.id AND p.job_created_ms = k.created
                            UNION
                            SELECT %3$s FROM (
                                WITH RECURSIVE queues (queue) AS (
                                    (SELECT queue FROM %2$s ORDER BY queue LIMIT 1)
                                    UNION ALL
                                    SELECT (SELECT queue FROM %2$s WHERE queue > queues.queue ORDER BY queue LIMIT 1)
                                    FROM queues WHERE queues.queue IS NOT NULL)
                                SELECT queue FROM queues WHERE queue IS NOT NULL) q
                            JOIN LATERAL (SELECT * FROM %2$s r WHERE r.queue = q.queue AND r.applied_at > :since) p ON true"""
                            .formatted(COLUMNS, table, prefixed("p.", COLUMNS)))
                    .bind("queues", keep.stream().map(EffectRecord::queue).toArray(String[]::new))
                    .bind("ids", keep.stream().mapToLong(r -> Long.parseLong(r.jobId())).toArray())
                    .bind("created", keep.stream().mapToLong(EffectRecord::jobCreatedMs).toArray())
                    .bind("since", Timestamp.from(appliedSince))
                    .execute();
            handle.execute("DROP TABLE " + table);
            return Optional.of(keptBack);
        }));
    }

    /**
     * A change of the partition set that gave up waiting {@link #RETIRE_LOCK_WAIT} for its lock:
     * an effect transaction held the table (or another engine the partition set). Nothing
     * changed; the change is the caller's to try again later, and no fault.
     */
    public static final class BusyException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BusyException(Duration waited, RuntimeException cause) {
            super("gave up waiting " + waited.toMillis() + " ms for the effect table's lock (an effect transaction held it)", cause);
        }
    }

    private <T> T unlessBusy(java.util.function.Supplier<T> change) {
        try {
            return change.get();
        } catch (RuntimeException e) {
            if (EffectStore.LOCK_NOT_AVAILABLE.equals(EffectStore.sqlState(e))) {
                throw new BusyException(lockWait, e);
            }
            throw e;
        }
    }

    private static String prefixed(String prefix, String columns) {
        return String.join(", ", Arrays.stream(columns.split(", ")).map(c -> prefix + c).toList());
    }

    private static void waitAtMost(Handle handle, Duration lockWait) {
        handle.execute("SELECT set_config('lock_timeout', ?, true)", lockWait.toMillis() + "ms");
    }

    private static void lockPartitionSet(Handle handle) {
        handle.execute("SELECT pg_advisory_xact_lock(?)", PARTITION_SET_LOCK);
    }

    /**
     * Makes one partition as a table of its own and attaches it: ATTACH takes only a SHARE UPDATE
     * EXCLUSIVE lock on the table (CREATE TABLE … PARTITION OF would take ACCESS EXCLUSIVE), so
     * effect transactions go on meanwhile. It reads the DEFAULT partition to prove none of its rows
     * belongs in the new range; that partition stays small.
     */
    private static void attach(Handle handle, Range range) {
        String table = "echomq." + quoted(range.name());
        handle.execute("CREATE TABLE " + table + " (LIKE echomq.effect INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
        handle.execute("ALTER TABLE echomq.effect ATTACH PARTITION " + table + " FOR VALUES FROM (" + range.fromMs() + ") TO ("
                + range.toMs() + ")");
    }

    private static List<Range> rangesIn(Handle handle) {
        return handle.createQuery("""
                        SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
                        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                        WHERE i.inhparent = 'echomq.effect'::regclass""")
                .map((rs, ctx) -> range(rs.getString("relname"), rs.getString("bound")))
                .stream()
                .flatMap(Optional::stream)
                .sorted(Comparator.comparingLong(Range::fromMs))
                .toList();
    }

    /** The range a partition bound reads as; empty for the DEFAULT partition. */
    static Optional<Range> range(String name, String bound) {
        Matcher m = RANGE.matcher(bound);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new Range(name, boundValue(m.group(1)), boundValue(m.group(2))));
    }

    private static long boundValue(String text) {
        String value = text.replace("'", "").strip();
        return switch (value) {
            case "MINVALUE" -> Long.MIN_VALUE;
            case "MAXVALUE" -> Long.MAX_VALUE;
            default -> Long.parseLong(value);
        };
    }

    /** A partition name as an identifier: names come from the catalog or from {@link #makeAhead}, never from outside. */
    private static String quoted(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
