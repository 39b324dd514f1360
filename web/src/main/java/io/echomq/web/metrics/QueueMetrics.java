package io.echomq.web.metrics;

import io.echomq.effect.EffectOutcome;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.RetryOutcome;
import io.echomq.worker.WorkerListener;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

/**
 * Per-queue metrics (MicroProfile Metrics, tag {@code queue}): jobs enqueued, completed,
 * retried and dead; duplicates the effect store absorbed (a redelivered job whose effect was
 * already applied), and among them resubmissions (a job whose idempotency key another job's
 * effect already carries); how long claims and effect transactions take.
 */
@ApplicationScoped
public class QueueMetrics implements WorkerListener {

    /*
     * Durations are histograms of microseconds, with the unit in the name and no unit metadata:
     * Payara 6 converts a Timer's or a timed histogram's max to seconds but not its quantiles,
     * which would mislead every dashboard by a factor of a million.
     */
    private static final Metadata CLAIM_MICROS = Metadata.builder().withName("echomq.claim.duration.micros")
            .withDescription("duration of one claim call, in microseconds").withUnit(MetricUnits.NONE).build();
    private static final Metadata EFFECT_MICROS = Metadata.builder().withName("echomq.effect.duration.micros")
            .withDescription("duration of one effect transaction, in microseconds").withUnit(MetricUnits.NONE).build();

    @Inject
    MetricRegistry registry;

    private final Throughput throughput = new Throughput();

    /** Completed and failed jobs per queue and minute over the last hour, for the console's charts. */
    public Throughput throughput() {
        return throughput;
    }

    public void enqueued(String queue, long jobs) {
        registry.counter("echomq.jobs.enqueued", tag(queue)).inc(jobs);
    }

    @Override
    public void claimCall(String queue, Duration took, int jobs) {
        registry.histogram(CLAIM_MICROS, tag(queue)).update(micros(took));
    }

    @Override
    public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
        registry.histogram(EFFECT_MICROS, tag(job.lease().queue())).update(micros(took));
        if (outcome instanceof EffectOutcome.AlreadyApplied skipped) {
            registry.counter("echomq.effects.duplicates.absorbed", tag(job.lease().queue())).inc();
            if (skipped.byAnotherJob()) {
                registry.counter("echomq.effects.resubmissions.absorbed", tag(job.lease().queue())).inc();
            }
        }
    }

    @Override
    public void completed(ClaimedJob job) {
        registry.counter("echomq.jobs.completed", tag(job.lease().queue())).inc();
        throughput.completed(job.lease().queue());
    }

    @Override
    public void retried(ClaimedJob job, RetryOutcome outcome, String error) {
        String name = outcome instanceof RetryOutcome.DeadLettered ? "echomq.jobs.dead" : "echomq.jobs.retried";
        registry.counter(name, tag(job.lease().queue())).inc();
        throughput.failed(job.lease().queue());
    }

    private static long micros(Duration d) {
        return d.toNanos() / 1_000;
    }

    private static Tag tag(String queue) {
        return new Tag("queue", queue);
    }
}
