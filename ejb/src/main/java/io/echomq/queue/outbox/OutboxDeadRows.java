package io.echomq.queue.outbox;

import java.util.List;
import java.util.Map;

/**
 * The dead rows of one outbox as its relays last reported them ({@link OutboxAdmin#publish}),
 * with the admins' commands on them that no relay has carried out yet.
 *
 * @param source      the outbox's name: the JNDI name of the data source that holds it
 * @param count       dead rows in the outbox, all of them
 * @param oldest      the oldest of them, at most {@link OutboxAdmin#MAX_REPORTED_ROWS}, oldest first
 * @param requested   commands waiting for a relay, by row id
 * @param updatedAtMs when a relay published the report (its clock, ms since the epoch)
 */
public record OutboxDeadRows(String source, long count, List<OutboxDeadRow> oldest, Map<Long, OutboxCommand> requested,
                             long updatedAtMs) {

    public OutboxDeadRows {
        oldest = List.copyOf(oldest);
        requested = Map.copyOf(requested);
    }

    /** Whether the report lists this row (a command is only accepted for a listed row). */
    public boolean lists(long rowId) {
        return oldest.stream().anyMatch(row -> row.id() == rowId);
    }
}
