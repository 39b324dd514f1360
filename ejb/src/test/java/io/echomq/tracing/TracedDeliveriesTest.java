package io.echomq.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Lease;
import io.echomq.queue.QueueUnavailableException;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A job's fate never depends on its telemetry. */
class TracedDeliveriesTest {

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build();

    @AfterEach
    void close() {
        sdk.close();
    }

    @Test
    void aDeliveryWhoseCreationContextCannotBeReadRunsInATraceOfItsOwn() {
        Deliveries deliveries = OpenTelemetryJobs.of(sdk).deliveries("q", Duration.ofSeconds(30), ids -> {
            throw new QueueUnavailableException("Valkey is unreachable", null);
        });
        ClaimedJob job = new ClaimedJob(new Lease("q", "7", 1L, 1L), "{}", "default", Instant.now());

        String effect;
        try (Processing processing = deliveries.processing(job)) {
            effect = processing.effect(() -> "applied");
            processing.settling(job, null);
        }

        assertThat(effect).isEqualTo("applied");
        SpanData process = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("process q")).findFirst().orElseThrow();
        assertThat(process.getParentSpanContext().isValid()).as("a root: no creation to be the child of").isFalse();
        assertThat(process.getLinks()).isEmpty();
    }

    @Test
    void aStoredContextThatIsNotW3CIsIgnored() {
        Deliveries deliveries = OpenTelemetryJobs.of(sdk).deliveries("q", Duration.ofSeconds(30), ids -> List.of("not-a-traceparent"));
        ClaimedJob job = new ClaimedJob(new Lease("q", "7", 1L, 1L), "{}", "default", Instant.now());

        try (Processing processing = deliveries.processing(job)) {
            processing.settling(job, null);
        }

        SpanData process = spans.getFinishedSpanItems().get(0);
        assertThat(process.getParentSpanContext().isValid()).isFalse();
        assertThat(process.getLinks()).isEmpty();
    }
}
