package io.echomq.queue.outbox;

import static io.echomq.queue.internal.ValkeyCommands.read;
import static io.echomq.queue.internal.ValkeyCommands.write;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueClient;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.UnifiedJedis;

/**
 * The resource adapter's outbox gauges, its dead outbox rows and the admins' commands on them,
 * exchanged through Valkey: the WAR that shows them has no access to the applications'
 * databases, and the relays that own the rows do. A relay publishes its outbox's gauges
 * ({@link #publishGauge}) and dead rows (their count and the oldest {@value #MAX_REPORTED_ROWS},
 * {@link #publishDeadRows}) at every sweep; an admin's retry or drop of a listed row is stored for the
 * outbox's relays, which carry it out in the database at their next sweep and then remove it.
 *
 * <p>Not queue state: plain commands, no script. Gauges and reports expire unless published
 * again, so an outbox whose relays all stopped disappears; a command expires after
 * {@link #COMMAND_LIFETIME} when no relay of its outbox runs. A command is only an intent: the
 * relay applies it to the row only while the row is still dead, so a command carried out twice
 * (two relays) or late does nothing more. Thread-safe; obtained from {@link QueueClient#outboxAdmin()}.
 */
public final class OutboxAdmin {

    /** Dead rows one report lists at most, oldest first (the count says how many there are). */
    public static final int MAX_REPORTED_ROWS = 100;

    /** How long a command waits for a relay of its outbox. */
    public static final Duration COMMAND_LIFETIME = Duration.ofHours(1);

    private static final int MAX_SOURCE_CHARS = 1_000;
    private static final String COUNT = "count";
    private static final String UPDATED_AT = "updatedAtMs";
    private static final String DEPTH = "depth";
    private static final String OLDEST_AGE = "oldestAgeMs";
    private static final String ROW = "row:";

    private final UnifiedJedis redis;

    /** Over the queue client's connections; callers take it from {@link io.echomq.queue.QueueClient#outboxAdmin()}. */
    public OutboxAdmin(UnifiedJedis redis) {
        this.redis = redis;
    }

    /**
     * Publishes one outbox's gauges for every node's console to read: they expire after
     * {@code ttl} unless published again, so an outbox whose relays all stopped disappears
     * instead of showing old numbers. Last writer wins: every node relaying one database computes
     * the same numbers.
     *
     * @param source the outbox's name (the data source's JNDI name)
     */
    public void publishGauge(String source, long depth, long oldestAgeMs, Duration ttl) {
        String key = QueueKeys.outbox(source);
        long now = System.currentTimeMillis();
        write(() -> {
            redis.hset(key, Map.of(DEPTH, Long.toString(depth), OLDEST_AGE, Long.toString(oldestAgeMs),
                    UPDATED_AT, Long.toString(now)));
            redis.pexpire(key, ttl.toMillis());
            return redis.zadd(QueueKeys.OUTBOXES, now, source);
        });
    }

    /** The outboxes' gauges, as last published and not yet expired, by name; forgets the names whose gauges expired. */
    public List<OutboxGauge> gauges() {
        List<OutboxGauge> gauges = new ArrayList<>();
        List<String> expired = new ArrayList<>();
        read(() -> {
            for (String source : redis.zrange(QueueKeys.OUTBOXES, 0, -1)) {
                Map<String, String> fields = redis.hgetAll(QueueKeys.outbox(source));
                if (fields.isEmpty()) {
                    expired.add(source);
                } else {
                    gauges.add(new OutboxGauge(source, Long.parseLong(fields.getOrDefault(DEPTH, "0")),
                            Long.parseLong(fields.getOrDefault(OLDEST_AGE, "0")),
                            Long.parseLong(fields.getOrDefault(UPDATED_AT, "0"))));
                }
            }
            return gauges;
        });
        if (!expired.isEmpty()) {
            write(() -> redis.zrem(QueueKeys.OUTBOXES, expired.toArray(String[]::new)));
        }
        gauges.sort(Comparator.comparing(OutboxGauge::source));
        return gauges;
    }

    /**
     * Replaces the report of {@code source}'s dead rows; with none, removes it.
     *
     * @param count  every dead row of the outbox
     * @param oldest the oldest of them, at most {@value #MAX_REPORTED_ROWS}
     * @param ttl    how long the report stands unless published again
     */
    public void publishDeadRows(String source, long count, List<OutboxDeadRow> oldest, Duration ttl) {
        String key = QueueKeys.outboxDeadRows(checkSource(source));
        if (oldest.size() > MAX_REPORTED_ROWS) {
            throw new InvalidRequestException("oldest", "lists at most " + MAX_REPORTED_ROWS + " rows, held " + oldest.size());
        }
        if (count == 0) {
            write(() -> redis.del(key));
            return;
        }
        Map<String, String> fields = new HashMap<>();
        fields.put(COUNT, Long.toString(count));
        fields.put(UPDATED_AT, Long.toString(System.currentTimeMillis()));
        for (OutboxDeadRow row : oldest) {
            String at = ROW + row.id() + ":";
            fields.put(at + "queue", row.queue());
            fields.put(at + "refusals", Integer.toString(row.refusals()));
            fields.put(at + "error", row.lastError() == null ? "" : row.lastError());
            fields.put(at + "createdAtMs", Long.toString(row.createdAtMs()));
            fields.put(at + "deadAtMs", Long.toString(row.deadAtMs()));
        }
        write(() -> {
            // New fields first, then the rows no longer dead go: a reader never sees an empty report.
            redis.hset(key, fields);
            String[] gone = redis.hkeys(key).stream().filter(field -> !fields.containsKey(field)).toArray(String[]::new);
            if (gone.length > 0) {
                redis.hdel(key, gone);
            }
            return redis.pexpire(key, ttl.toMillis());
        });
    }

    /** The report of {@code source}'s dead rows, with the commands waiting on them; empty when it has none (or no relay reports it). */
    public Optional<OutboxDeadRows> deadRows(String source) {
        checkSource(source);
        return read(() -> {
            Map<String, String> fields = redis.hgetAll(QueueKeys.outboxDeadRows(source));
            if (fields.isEmpty() || !fields.containsKey(COUNT)) {
                return Optional.empty();
            }
            return Optional.of(new OutboxDeadRows(source, Long.parseLong(fields.get(COUNT)), rows(fields), requested(source),
                    Long.parseLong(fields.getOrDefault(UPDATED_AT, "0"))));
        });
    }

    /**
     * Asks the relays of {@code source} to carry out {@code command} on dead row {@code rowId};
     * a later command on the same row replaces this one.
     *
     * @return false, and nothing stored, when the last report does not list that row
     */
    public boolean request(String source, long rowId, OutboxCommand command) {
        checkSource(source);
        RequestChecks.range("id", rowId, 1, Long.MAX_VALUE);
        if (command == null) {
            throw new InvalidRequestException("command", "is required (retry or drop)");
        }
        if (deadRows(source).filter(report -> report.lists(rowId)).isEmpty()) {
            return false;
        }
        String key = QueueKeys.outboxCommands(source);
        write(() -> {
            redis.hset(key, Long.toString(rowId), command.wireName());
            return redis.pexpire(key, COMMAND_LIFETIME.toMillis());
        });
        return true;
    }

    /** The commands waiting for the relays of {@code source}, by row id. */
    public Map<Long, OutboxCommand> requested(String source) {
        checkSource(source);
        Map<String, String> stored = read(() -> redis.hgetAll(QueueKeys.outboxCommands(source)));
        Map<Long, OutboxCommand> commands = new HashMap<>();
        stored.forEach((id, name) -> OutboxCommand.ofWireName(name).filter(command -> id.matches("[1-9][0-9]{0,17}"))
                .ifPresent(command -> commands.put(Long.parseLong(id), command)));
        return commands;
    }

    /** Forgets the command on row {@code rowId} of {@code source}: a relay carried it out. */
    public void carriedOut(String source, long rowId) {
        checkSource(source);
        write(() -> redis.hdel(QueueKeys.outboxCommands(source), Long.toString(rowId)));
    }

    private static List<OutboxDeadRow> rows(Map<String, String> fields) {
        Set<Long> ids = new HashSet<>();
        for (String field : fields.keySet()) {
            if (field.startsWith(ROW)) {
                ids.add(Long.parseLong(field.substring(ROW.length(), field.indexOf(':', ROW.length()))));
            }
        }
        List<OutboxDeadRow> rows = new ArrayList<>(ids.size());
        for (long id : ids) {
            String at = ROW + id + ":";
            rows.add(new OutboxDeadRow(id, fields.getOrDefault(at + "queue", ""), Integer.parseInt(fields.getOrDefault(at + "refusals", "0")),
                    fields.getOrDefault(at + "error", ""), Long.parseLong(fields.getOrDefault(at + "createdAtMs", "0")),
                    Long.parseLong(fields.getOrDefault(at + "deadAtMs", "0"))));
        }
        // Ids grow with the rows' insertion: the oldest first.
        rows.sort(Comparator.comparingLong(OutboxDeadRow::id));
        return rows;
    }

    private static String checkSource(String source) {
        if (source == null || source.isBlank()) {
            throw new InvalidRequestException("source", "is required (the JNDI name of the outbox's data source)");
        }
        if (source.length() > MAX_SOURCE_CHARS) {
            throw new InvalidRequestException("source", "must be at most " + MAX_SOURCE_CHARS + " characters, held " + source.length());
        }
        return source;
    }
}
