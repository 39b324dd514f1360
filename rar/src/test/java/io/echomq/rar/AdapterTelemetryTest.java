package io.echomq.rar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.tracing.JobTelemetry;
import io.echomq.tracing.OpenTelemetryJobs;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The adapter's telemetry setting: off by default and for "off", the global OpenTelemetry for "global", anything else refused. */
class AdapterTelemetryTest {

    @AfterEach
    void forgetTheGlobal() {
        GlobalOpenTelemetry.resetForTest();
    }

    @Test
    void offUnlessAskedAndOffCostsNothing() {
        assertThat(AdapterTelemetry.chosen(null)).isSameAs(JobTelemetry.OFF);
        assertThat(AdapterTelemetry.chosen(" ")).isSameAs(JobTelemetry.OFF);
        assertThat(AdapterTelemetry.chosen("OFF")).isSameAs(JobTelemetry.OFF);
    }

    @Test
    void globalTakesTheGlobalOpenTelemetryAndAGlobalThatRecordsNothingIsOff() {
        assertThat(AdapterTelemetry.chosen("global")).as("nothing registered: the no-op global").isSameAs(JobTelemetry.OFF);
        GlobalOpenTelemetry.resetForTest();
        try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create())).build()).build()) {
            GlobalOpenTelemetry.set(sdk);
            assertThat(AdapterTelemetry.chosen("global")).isInstanceOf(OpenTelemetryJobs.class);
        }
    }

    @Test
    void anyOtherValueIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> AdapterTelemetry.chosen("otlp")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(AdapterTelemetry.KEY + ": must be off or global");
    }
}
