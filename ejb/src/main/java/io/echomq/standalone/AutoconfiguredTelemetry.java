package io.echomq.standalone;

import io.echomq.runtime.ConfigurationException;
import io.echomq.tracing.OpenTelemetryJobs;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;

/**
 * The only class of the standalone worker that names the OpenTelemetry SDK, so that a worker with
 * telemetry off never loads it ({@link WorkerTelemetry}).
 */
final class AutoconfiguredTelemetry {

    private AutoconfiguredTelemetry() {
    }

    /**
     * An SDK built from the {@code OTEL_*} environment and {@code otel.*} system properties. Its
     * own shutdown hook is off: the worker closes it after the engine stopped, so the spans of the
     * last deliveries are sent, not dropped.
     */
    static WorkerTelemetry start() {
        OpenTelemetrySdk sdk;
        try {
            sdk = AutoConfiguredOpenTelemetrySdk.builder().disableShutdownHook().build().getOpenTelemetrySdk();
        } catch (io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException e) {
            throw new ConfigurationException(WorkerTelemetry.SDK_DISABLED, "is false, but the OTEL_* settings are refused: "
                    + e.getMessage());
        }
        return new WorkerTelemetry(OpenTelemetryJobs.of(sdk), sdk::close);
    }
}
