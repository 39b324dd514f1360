package io.echomq.runtime;

import io.echomq.tracing.JobTelemetry;
import io.echomq.tracing.OpenTelemetryJobs;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;

/**
 * The engine's telemetry from the server's MicroProfile Telemetry: its {@link OpenTelemetry}, so
 * the application's spans and the engine's share one trace, configured by the standard
 * {@code OTEL_*} settings. Where the OpenTelemetry API is not visible to the application (no
 * MicroProfile Telemetry; Open Liberty without third-party API visibility), the container cannot
 * load this class and skips it, and the engine runs without telemetry.
 */
@ApplicationScoped
public class ServerTelemetry {

    /** MicroProfile Telemetry's switch ({@code OTEL_SDK_DISABLED} in the environment); true unless set. */
    static final String SDK_DISABLED = "otel.sdk.disabled";

    @Inject
    Instance<OpenTelemetry> openTelemetry;

    @Inject
    Config config;

    /**
     * {@link JobTelemetry#OFF} while {@value #SDK_DISABLED} is true, MicroProfile Telemetry's
     * default. The switch is read here, not inferred from the OpenTelemetry the server gives:
     * Payara Micro 6 and WildFly 35 give one whose spans record even then (spans that go nowhere),
     * and off must cost nothing.
     */
    @Produces
    JobTelemetry jobTelemetry() {
        boolean disabled = config.getOptionalValue(SDK_DISABLED, Boolean.class).orElse(true);
        return disabled || !openTelemetry.isResolvable() ? JobTelemetry.OFF : OpenTelemetryJobs.of(openTelemetry.get());
    }
}
