package io.echomq.runtime;

import io.echomq.tracing.JobTelemetry;
import io.echomq.tracing.OpenTelemetryJobs;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

/**
 * The engine's telemetry from the server's MicroProfile Telemetry: its {@link OpenTelemetry}, so
 * the application's spans and the engine's share one trace, configured by the standard
 * {@code OTEL_*} settings (off, {@code OTEL_SDK_DISABLED=true}, is MicroProfile Telemetry's default, and
 * then this is {@link JobTelemetry#OFF}). Where the OpenTelemetry API is not visible to the
 * application (no MicroProfile Telemetry; Open Liberty without third-party API visibility), the
 * container cannot load this class and skips it, and the engine runs without telemetry.
 */
@ApplicationScoped
public class ServerTelemetry {

    @Inject
    Instance<OpenTelemetry> openTelemetry;

    @Produces
    JobTelemetry jobTelemetry() {
        return openTelemetry.isResolvable() ? OpenTelemetryJobs.of(openTelemetry.get()) : JobTelemetry.OFF;
    }
}
