package io.echomq.web.metrics;

import io.echomq.effect.EffectOutcome;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.maintenance.Pass;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.StopOutcome;
import io.echomq.queue.outbox.OutboxGauge;
import io.echomq.worker.WorkerListener;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-queue metrics (tag {@code queue}): jobs enqueued, claimed, completed, retried and dead; duplicates
 * the effect store absorbed (a redelivered job whose effect was already applied), and among them
 * resubmissions (a job whose idempotency key another job's effect already carries); how long
 * claims and effect transactions take; each maintenance duty's runs, changes and failures (tags
 * {@code duty} and {@code queue}); the resource adapters' outboxes, rows waiting and the oldest
 * one's age, and dead rows (tag {@code data_source}), as their relays last reported them. Served in Prometheus
 * text by {@link MetricsServlet}.
 *
 * <p>A Micrometer registry inside the WAR, not the server's MicroProfile Metrics: WildFly 35
 * has none, so only a bundled one gives every server the same {@code /metrics}. The names are
 * the ones MicroProfile Metrics gave them on Payara ({@code echomq_jobs_completed_total},
 * {@code echomq_claim_duration_micros} with quantiles, {@code _count}, {@code _sum},
 * {@code _max}), so dashboards built then still work.
 */
@ApplicationScoped
public class QueueMetrics implements WorkerListener, MaintenanceListener {

    /** The quantiles MicroProfile Metrics published for a histogram. */
    private static final double[] QUANTILES = {0.5, 0.75, 0.95, 0.98, 0.99, 0.999};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Throughput throughput = new Throughput();
    /** Each outbox's last reported rows waiting and oldest age (ms), by data source: the gauges read them. */
    private final Map<String, AtomicLong[]> outboxes = new ConcurrentHashMap<>();
    /** Each outbox's last reported dead rows, by data source: the gauge reads them. */
    private final Map<String, AtomicLong> outboxDeadRows = new ConcurrentHashMap<>();

    /** Completed and failed jobs per queue and minute over the last hour, for the console's charts. */
    public Throughput throughput() {
        return throughput;
    }

    /** Adds meters another class keeps (see {@link QueueGauges}) to the ones {@link #scrape} serves. */
    void register(MeterBinder meters) {
        meters.bindTo(registry);
    }

    /** Every metric in the Prometheus text format. */
    public String scrape() {
        return registry.scrape();
    }

    /**
     * The outboxes as their relays last reported them (see {@code OutboxAdmin.gauges}): an
     * outbox no longer reported keeps its last figures until one is reported again, as a gauge of
     * a stopped process does.
     */
    public void outboxes(List<OutboxGauge> reported) {
        for (OutboxGauge gauge : reported) {
            AtomicLong[] figures = outboxes.computeIfAbsent(gauge.source(), source -> {
                AtomicLong[] values = {new AtomicLong(), new AtomicLong()};
                registry.gauge("echomq.outbox.depth", io.micrometer.core.instrument.Tags.of("data_source", source), values[0]);
                registry.gauge("echomq.outbox.oldest.age.seconds", io.micrometer.core.instrument.Tags.of("data_source", source),
                        values[1], v -> v.get() / 1000.0);
                return values;
            });
            figures[0].set(gauge.depth());
            figures[1].set(gauge.oldestAgeMs());
        }
    }

    /**
     * An outbox's dead rows as its relays last reported them (rows Valkey refused at every try,
     * waiting for an admin): anything above 0 needs one.
     */
    public void outboxDeadRows(String source, long count) {
        outboxDeadRows.computeIfAbsent(source, name -> registry.gauge("echomq.outbox.dead.rows",
                io.micrometer.core.instrument.Tags.of("data_source", name), new AtomicLong())).set(count);
    }

    /** Each maintenance duty's runs, the changes they made and their failures, per queue (tags {@code duty}, {@code queue}). */
    @Override
    public void ran(String duty, String queue, Pass pass, Duration took) {
        registry.counter("echomq.maintenance.runs", "duty", duty, "queue", queue).increment();
        registry.counter("echomq.maintenance.changes", "duty", duty, "queue", queue).increment(pass.changes());
    }

    @Override
    public void failed(String duty, String queue, RuntimeException error) {
        registry.counter("echomq.maintenance.failures", "duty", duty, "queue", queue).increment();
    }

    public void enqueued(String queue, long jobs) {
        registry.counter("echomq.jobs.enqueued", "queue", queue).increment(jobs);
    }

    @Override
    public void claimCall(String queue, Duration took, int jobs) {
        // Counted even when 0: a queue whose workers ask and get nothing shows a flat line, not no line.
        registry.counter("echomq.jobs.claimed", "queue", queue).increment(jobs);
        micros("echomq.claim.duration.micros", "duration of one claim call, in microseconds", queue).record(micros(took));
    }

    @Override
    public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
        String queue = job.lease().queue();
        micros("echomq.effect.duration.micros", "duration of one effect transaction, in microseconds", queue).record(micros(took));
        if (outcome instanceof EffectOutcome.AlreadyApplied skipped) {
            registry.counter("echomq.effects.duplicates.absorbed", "queue", queue).increment();
            if (skipped.byAnotherJob()) {
                registry.counter("echomq.effects.resubmissions.absorbed", "queue", queue).increment();
            }
        }
    }

    @Override
    public void completed(ClaimedJob job) {
        registry.counter("echomq.jobs.completed", "queue", job.lease().queue()).increment();
        throughput.completed(job.lease().queue());
    }

    @Override
    public void retried(ClaimedJob job, RetryOutcome outcome, String error) {
        String name = outcome instanceof RetryOutcome.DeadLettered ? "echomq.jobs.dead"
                : outcome instanceof RetryOutcome.Cancelled ? "echomq.jobs.cancelled" : "echomq.jobs.retried";
        registry.counter(name, "queue", job.lease().queue()).increment();
        throughput.failed(job.lease().queue());
    }

    @Override
    public void stopped(ClaimedJob job, StopOutcome outcome) {
        if (outcome instanceof StopOutcome.Stopped) {
            registry.counter("echomq.jobs.cancelled", "queue", job.lease().queue()).increment();
        }
    }

    /*
     * Durations are summaries of plain microseconds with the unit in the name, not timers: a
     * timer is exported in seconds, and the names (and dashboards) say micros.
     */
    private DistributionSummary micros(String name, String description, String queue) {
        return DistributionSummary.builder(name).description(description).tag("queue", queue)
                .publishPercentiles(QUANTILES).register(registry);
    }

    private static long micros(Duration d) {
        return d.toNanos() / 1_000;
    }
}
