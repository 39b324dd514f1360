package io.echomq.queue;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of a queue's job-event stream: a state change (or a progress report) of one job,
 * appended by the very script that made it, on the server clock. Entries are ordered by
 * {@link #id()}, the stream entry id a reader resumes after.
 *
 * @param id      the stream entry id ({@code <ms>-<seq>}), unique and increasing within the queue
 * @param jobId   the job it concerns
 * @param created the job's creation time; with the id it names the job (an id can repeat after a failover)
 * @param event   one of {@link #TYPES}
 * @param lane    the job's lane ("" when the job was already gone)
 * @param attempt the attempt (token) it concerns, when it concerns one
 * @param at      when the script made the change (Valkey's clock)
 * @param detail  error text, reason, due time or progress, possibly empty
 */
public record QueueEvent(String id, String jobId, Optional<Instant> created, String event, String lane,
        Optional<Long> attempt, Instant at, String detail) {

    /**
     * The event types the scripts write: a job's history events (see {@link JobEvent}) but the
     * heartbeat ({@code extended}), plus {@code progress} (a heartbeat that carried a report) and
     * {@code removed} (an operator deleted a finished job); a workflow's parent adds {@code child-settled}
     * and {@code released} (its children all settled).
     */
    public static final List<String> TYPES = List.of("enqueued", "replaced", "promoted", "claimed", "progress", "completed",
            "retried", "dead", "reaped", "rejected", "cancel-requested", "cancelled", "requeued", "rescheduled", "reconciled",
            "removed", "child-settled", "released");

    private static final String SEPARATOR = "\u001f";

    /**
     * Reads one stream entry as the scripts write it (see {@code includes/log_event.lua}): field
     * {@code e}, seven fields joined by the unit separator: job, created, event, lane, attempt, at, detail.
     */
    static QueueEvent of(String id, Map<String, String> fields) {
        String[] f = fields.getOrDefault("e", "").split(SEPARATOR, 7);
        String[] all = Arrays.copyOf(f, 7);
        return new QueueEvent(id, text(all[0]), millis(all[1]), text(all[2]), text(all[3]), number(all[4]),
                millis(all[5]).orElse(Instant.EPOCH), text(all[6]));
    }

    private static String text(String field) {
        return field == null ? "" : field;
    }

    private static Optional<Instant> millis(String field) {
        return number(field).map(Instant::ofEpochMilli);
    }

    private static Optional<Long> number(String field) {
        try {
            return field == null || field.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(field));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
