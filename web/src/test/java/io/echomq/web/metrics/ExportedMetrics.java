package io.echomq.web.metrics;

import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectRecord;
import io.echomq.maintenance.Pass;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.JobState;
import io.echomq.queue.Lease;
import io.echomq.queue.QueueStats;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.StopOutcome;
import io.echomq.queue.outbox.OutboxGauge;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The names of the series the WAR's /metrics serves, taken from a real scrape of
 * {@link QueueMetrics} and {@link QueueGauges} after every event that makes a meter: a rule or a
 * panel naming anything else would never see data.
 */
final class ExportedMetrics {

    private ExportedMetrics() {
    }

    /** Every series name of a scrape in which each meter has been made. */
    static Set<String> names() {
        return seriesNames(scrapeWithEveryMeter());
    }

    static String scrapeWithEveryMeter() {
        QueueMetrics metrics = new QueueMetrics();
        String queue = "orders";
        Lease lease = new Lease(queue, "1", 1L, 1, null);
        ClaimedJob job = new ClaimedJob(lease, "{}", "default", Instant.EPOCH);
        Instant at = Instant.EPOCH;

        metrics.enqueued(queue, 1);
        metrics.claimCall(queue, Duration.ofMillis(1), 1);
        metrics.effect(job, new EffectOutcome.AlreadyApplied(lease, new EffectRecord(queue, "2", 2L, 1, at)), Duration.ofMillis(1));
        metrics.completed(job);
        metrics.retried(job, new RetryOutcome.Scheduled(lease, JobState.DELAYED, at), "boom");
        metrics.retried(job, new RetryOutcome.DeadLettered(lease, 3), "boom");
        metrics.retried(job, new RetryOutcome.Cancelled(lease, at), "stopped");
        metrics.stopped(job, new StopOutcome.Stopped(lease, at));
        metrics.ran("reaper", queue, new Pass(1, 0, 0, 0, 0, 0, 0, 0), Duration.ofMillis(1));
        metrics.failed("reaper", queue, new IllegalStateException("Valkey down"));
        metrics.outboxes(List.of(new OutboxGauge("jdbc/orders", 1, 1_000, 1L)));
        metrics.outboxDeadRows("jdbc/orders", 1);
        QueueGauges gauges = new QueueGauges(metrics, null);
        gauges.record(new QueueStats(queue, 1, 1, 1, 1, 1, 1, false, 1, 0, 1), Duration.ofSeconds(1));
        gauges.recordEffectOverdue(queue, Duration.ZERO);
        return metrics.scrape();
    }

    /** The name of each sample line of a Prometheus text scrape ({@code name{labels} value} or {@code name value}). */
    static Set<String> seriesNames(String scrape) {
        Set<String> names = new TreeSet<>();
        scrape.lines().filter(line -> !line.isBlank() && !line.startsWith("#"))
                .forEach(line -> names.add(line.split("[{ ]", 2)[0]));
        return names;
    }
}
