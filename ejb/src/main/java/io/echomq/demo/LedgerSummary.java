package io.echomq.demo;

import org.jdbi.v3.core.Jdbi;

/**
 * The demo ledger read from outside, so anyone can check exactly-once: with the effect store,
 * {@code entries == distinctJobs} and {@code duplicates == 0} however often jobs were delivered.
 */
public record LedgerSummary(long entries, long distinctJobs, long duplicates, long totalCents) {

    public static LedgerSummary of(Jdbi jdbi, String queue) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT count(*) AS entries, count(DISTINCT job_id) AS distinct_jobs,
                               coalesce(sum(amount_cents), 0) AS total_cents
                        FROM echomq.demo_ledger WHERE queue = :queue""")
                .bind("queue", queue)
                .map((rs, ctx) -> new LedgerSummary(rs.getLong("entries"), rs.getLong("distinct_jobs"),
                        rs.getLong("entries") - rs.getLong("distinct_jobs"), rs.getLong("total_cents")))
                .one());
    }
}
