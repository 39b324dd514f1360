package io.echomq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;

/**
 * The run's Markdown report: each section rendered from what the run measured, echoed to stdout
 * as it comes (a long run shows its figures early), written to a file at the end.
 */
final class BenchReport {

    private final StringBuilder markdown = new StringBuilder();

    void header(Servers servers, BenchOptions options) {
        section("Run");
        line("- started " + Instant.now() + ", " + Runtime.getRuntime().availableProcessors() + " cores, JVM "
                + System.getProperty("java.version") + ", max heap " + Runtime.getRuntime().maxMemory() / 1048576 + " MiB");
        line("- Valkey: " + servers.valkey.description());
        line("- PostgreSQL: " + servers.postgres.description() + "; " + servers.durability);
        line("- options: " + options.summary());
    }

    /** One table of jobs/s or CPU per job: a row per contestant, a column per concurrency. */
    void byConcurrency(String title, List<Integer> concurrencies, Map<String, List<Double>> rows, DoubleFunction<String> format) {
        section(title);
        concurrencyHeader(concurrencies, "| |", "|---|");
        rows.forEach((name, values) -> {
            StringBuilder row = new StringBuilder("| " + name + " |");
            values.forEach(v -> row.append(' ').append(format.apply(v)).append(" |"));
            line(row.toString());
        });
    }

    /** One latency row's figures at one concurrency: medians of the rounds' p50 and p99, or none where it was not run. */
    record LatencyCell(double p50Millis, double p99Millis) {
    }

    /** A contestant's latency row: the rate it was offered, a cell per concurrency (null: that concurrency drains less). */
    record LatencyRow(String contestant, double offered, List<LatencyCell> cells) {
    }

    void latency(BenchOptions options, List<Integer> concurrencies, List<LatencyRow> rows) {
        section("Latency enqueue → effect committed, ms, p50 / p99, at half of each contestant's best throughput (open-loop "
                + "producer, " + options.latencySeconds() + " s timed per run after " + options.latencyUntimedSeconds() + " s untimed at "
                + "the same rate, median of " + options.rounds() + " rounds; — : that concurrency drains less than the offered rate)");
        concurrencyHeader(concurrencies, "| contestant | offered jobs/s |", "|---|--:|");
        for (LatencyRow latency : rows) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %s | %,.0f |", latency.contestant(), latency.offered()));
            for (LatencyCell cell : latency.cells()) {
                row.append(cell == null ? " — |" : String.format(Locale.ROOT, " %.1f / %.1f |", cell.p50Millis(), cell.p99Millis()));
            }
            line(row.toString());
        }
    }

    void claims(int samples, List<QueueDepth.ClaimLatency> byDepth, QueueDepth.LimitedClaim limited) {
        section("Claim latency against queue depth (" + samples + " claims of one job per depth, the depths in turn)");
        line("| pending jobs | claim p50 µs | claim p99 µs |");
        line("|--:|--:|--:|");
        for (QueueDepth.ClaimLatency c : byDepth) {
            line(String.format(Locale.ROOT, "| %,d | %.0f | %.0f |", c.pending(), c.p50Micros(), c.p99Micros()));
        }
        section(String.format(Locale.ROOT, "Claim with priorities, caps and rate limits (%,d pending over %,d lanes, %d claims of one "
                + "job from each queue in turn)", limited.pending(), limited.lanes(), samples));
        line("| queue | claim p50 µs | claim p99 µs |");
        line("|---|--:|--:|");
        line(String.format(Locale.ROOT, "| plain | %.0f | %.0f |", limited.plain().p50Micros(), limited.plain().p99Micros()));
        line(String.format(Locale.ROOT, "| priorities 0-9, limits: %s | %.0f | %.0f |", limited.limits(), limited.limited().p50Micros(),
                limited.limited().p99Micros()));
        line(String.format(Locale.ROOT, "- claim p99 with priorities and limits / plain: **%.2f×** (target: at most 1.20×)",
                limited.p99Ratio()));
    }

    void memory(QueueDepth.JobMemory m) {
        section("Valkey memory per job (" + String.format(Locale.ROOT, "%,d", m.jobs()) + " jobs, INFO memory deltas)");
        line("- pending: " + bytesPerJob(m.bytesPerPending()));
        line("- completed and retained (job hash + history + completed-set entry): " + bytesPerJob(m.bytesPerCompleted())
                + String.format(Locale.ROOT, " (over the %,d jobs that retention kept)", m.retained()));
        line(String.format(Locale.ROOT, "- MEMORY USAGE of the newest completed job: hash %d bytes, history list %d bytes",
                m.jobHashBytes(), m.historyBytes()));
    }

    /**
     * An INFO memory delta per job; none where the server's used_memory did not grow: the delta is
     * the whole server's, and other keys' memory can move meanwhile (a full run's sections before
     * this one leave over a million keys, whose hash table may be resizing), so a negative figure
     * says nothing of a job.
     */
    private static String bytesPerJob(double bytes) {
        return bytes > 0 ? String.format(Locale.ROOT, "**%.0f bytes per job**", bytes)
                : String.format(Locale.ROOT, "not measured (the server's used_memory changed by %.0f bytes per job: other keys' memory "
                        + "moved meanwhile)", bytes);
    }

    void heap(int jobs, long usedBytes, Measurement run) {
        section("Worker JVM heap after " + String.format(Locale.ROOT, "%,d", jobs) + " jobs");
        line(String.format(Locale.ROOT, "- heap used after a full GC: **%.1f MiB** (the bench JVM: worker, driver and the "
                + "clients; the %,d jobs ran batched at %,.0f jobs/s)", usedBytes / 1048576.0, jobs, run.jobsPerSecond()));
    }

    void section(String title) {
        line("");
        line("### " + title);
        line("");
    }

    void line(String text) {
        markdown.append(text).append('\n');
        System.out.println(text);
    }

    /** Writes the report so far to {@code file}; returns the file. */
    Path writeTo(Path file) throws IOException {
        Files.writeString(file, markdown);
        return file;
    }

    /** A table's header and rule: the leading columns given, then one right-aligned column per concurrency. */
    private void concurrencyHeader(List<Integer> concurrencies, String leadingHead, String leadingRule) {
        StringBuilder head = new StringBuilder(leadingHead);
        StringBuilder rule = new StringBuilder(leadingRule);
        for (int c : concurrencies) {
            head.append(" c=").append(c).append(" |");
            rule.append("--:|");
        }
        line(head.toString());
        line(rule.toString());
    }
}
