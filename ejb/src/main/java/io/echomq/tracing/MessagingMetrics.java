package io.echomq.tracing;

import static io.echomq.tracing.Conventions.DESTINATION;
import static io.echomq.tracing.Conventions.ERROR_TYPE;
import static io.echomq.tracing.Conventions.MESSAGING_SYSTEM;
import static io.echomq.tracing.Conventions.OPERATION_NAME;
import static io.echomq.tracing.Conventions.OUTCOME;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;

/**
 * The consumer's messaging metrics: {@code messaging.process.duration},
 * {@code messaging.client.consumed.messages}, and {@code echomq.job.queued.duration} (creation
 * to claim, both on the Valkey server's clock), each by queue and outcome.
 */
final class MessagingMetrics {

    private static final double NANOS_PER_SECOND = 1e9;
    private static final double MILLIS_PER_SECOND = 1e3;

    private final DoubleHistogram processDuration;
    private final LongCounter consumed;
    private final DoubleHistogram queued;

    MessagingMetrics(Meter meter) {
        this.processDuration = meter.histogramBuilder("messaging.process.duration").setUnit("s")
                .setDescription("Duration of processing a job: its effect transaction and the handler in it").build();
        this.consumed = meter.counterBuilder("messaging.client.consumed.messages").setUnit("{message}")
                .setDescription("Jobs delivered to a handler, by the outcome of the run").build();
        this.queued = meter.histogramBuilder("echomq.job.queued.duration").setUnit("s")
                .setDescription("Time from a job's creation to the claim that started this delivery, on the Valkey server's clock")
                .build();
    }

    /** A delivery of one job of {@code queue} ran for {@code nanos} and came to {@code errorType} (null: success). */
    void processed(String queue, long nanos, String errorType) {
        AttributesBuilder attributes = Attributes.builder().put(MESSAGING_SYSTEM, Conventions.SYSTEM).put(DESTINATION, queue)
                .put(OPERATION_NAME, "process").put(OUTCOME, Conventions.outcome(errorType));
        if (errorType != null) {
            attributes.put(ERROR_TYPE, errorType);
        }
        Attributes built = attributes.build();
        processDuration.record(nanos / NANOS_PER_SECOND, built);
        consumed.add(1, built);
    }

    /** A job of {@code queue} waited {@code millis} from its creation to its claim. */
    void queued(String queue, long millis) {
        queued.record(Math.max(0, millis) / MILLIS_PER_SECOND,
                Attributes.of(MESSAGING_SYSTEM, Conventions.SYSTEM, DESTINATION, queue));
    }
}
