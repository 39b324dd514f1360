package io.echomq.queue;

import java.time.Instant;
import java.util.Optional;

/**
 * One entry of a job's history, recorded by a script on the server clock.
 *
 * @param event      enqueued, replaced (a debounced submission), promoted, claimed, extended, completed, retried, dead, reaped,
 *                   rejected (a stale worker's settlement refused), cancelled, requeued, reconciled
 * @param attempt    the attempt (token) it concerns, when it concerns one
 * @param worker     the worker involved, when known
 * @param leaseUntil the lease deadline it set (claimed, extended)
 * @param detail     error text, reason or count, possibly empty
 */
public record JobEvent(Instant at, String event, Optional<Long> attempt, Optional<String> worker,
        Optional<Instant> leaseUntil, String detail) {

    private static final String SEPARATOR = "\u001f";

    /** Reads the script's form: six fields joined by the unit separator. */
    static JobEvent parse(String entry) {
        String[] f = entry.split(SEPARATOR, -1);
        return new JobEvent(Instant.ofEpochMilli(Long.parseLong(f[0])), f[1], number(f[2]), text(f[3]),
                number(f[4]).map(Instant::ofEpochMilli), f.length > 5 ? f[5] : "");
    }

    private static Optional<Long> number(String field) {
        try {
            return field.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(field));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> text(String field) {
        return field.isEmpty() ? Optional.empty() : Optional.of(field);
    }
}
