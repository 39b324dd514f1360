package io.echomq.standalone;

import io.echomq.runtime.ConfigReader;
import io.echomq.runtime.ConfigurationException;
import io.echomq.tracing.JobTelemetry;

/**
 * The standalone worker's telemetry, switched like the WAR's: on only when
 * {@code OTEL_SDK_DISABLED} (or the system property {@code otel.sdk.disabled}) is {@code false},
 * MicroProfile Telemetry's rule, so one setting means the same in every runtime. Off, no
 * OpenTelemetry class is loaded: the SDK is touched only by {@link AutoconfiguredTelemetry},
 * which is loaded only when on.
 *
 * @param jobs  what the engine is given
 * @param flush ends the telemetry at the worker's stop, sending what is still buffered
 */
record WorkerTelemetry(JobTelemetry jobs, Runnable flush) {

    /** The switch's key; {@code OTEL_SDK_DISABLED} in the environment. True unless set. */
    static final String SDK_DISABLED = "otel.sdk.disabled";

    static final WorkerTelemetry OFF = new WorkerTelemetry(JobTelemetry.OFF, () -> { });

    /**
     * Telemetry by the standard {@code OTEL_*} settings in {@code settings} (exporter, endpoint,
     * sampler, service name: the OpenTelemetry SDK's autoconfiguration reads them itself).
     *
     * @throws ConfigurationException naming {@value #SDK_DISABLED} when telemetry is on but the
     *                                SDK is not on the class path, or the SDK refuses the settings
     */
    static WorkerTelemetry from(ConfigReader settings) {
        boolean on = !settings.flag(SDK_DISABLED, System.getProperty(SDK_DISABLED, "true").equalsIgnoreCase("true"));
        if (!on) {
            return OFF;
        }
        try {
            return AutoconfiguredTelemetry.start();
        } catch (NoClassDefFoundError e) {
            throw new ConfigurationException(SDK_DISABLED, "is false, but the OpenTelemetry SDK is not on the class path ("
                    + e.getMessage() + " is missing): add io.opentelemetry:opentelemetry-sdk-extension-autoconfigure and "
                    + "io.opentelemetry:opentelemetry-exporter-otlp, optional dependencies of echomq-ejb");
        }
    }
}
