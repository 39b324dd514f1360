package io.echomq.rar;

import io.echomq.tracing.JobTelemetry;
import io.echomq.tracing.OpenTelemetryJobs;
import io.opentelemetry.api.GlobalOpenTelemetry;
import java.util.Locale;

/**
 * Where the adapter's traces go. A resource adapter has no CDI, so it cannot be handed the
 * application's MicroProfile Telemetry {@code OpenTelemetry} as the WAR is: it is told by the
 * setting {@value #KEY} (the adapter's config property {@code telemetry}, else the system property
 * or {@code ECHOMQ_ADAPTER_TELEMETRY}):
 * <ul>
 *   <li>{@code off} (the default): {@link JobTelemetry#OFF}; no OpenTelemetry class is loaded,
 *   no span made, no context stored or read;</li>
 *   <li>{@code global}: {@code GlobalOpenTelemetry}, as the OpenTelemetry Java agent (or a
 *   server or application that registers one) sets it up from the standard {@code OTEL_*}
 *   settings; a global that records nothing is {@link JobTelemetry#OFF} too.</li>
 * </ul>
 */
final class AdapterTelemetry {

    static final String KEY = "echomq.adapter.telemetry";

    private AdapterTelemetry() {
    }

    /**
     * @throws IllegalArgumentException a value that is neither, or {@code global} where the adapter cannot see the OpenTelemetry API;
     *                                  the message starts with {@value #KEY}
     */
    static JobTelemetry chosen(String value) {
        String choice = value == null || value.isBlank() ? "off" : value.trim().toLowerCase(Locale.ROOT);
        return switch (choice) {
            case "off" -> JobTelemetry.OFF;
            case "global" -> global();
            default -> throw new IllegalArgumentException(KEY + ": must be off or global, was '" + value + "'");
        };
    }

    private static JobTelemetry global() {
        try {
            return Global.telemetry();
        } catch (LinkageError e) {
            throw new IllegalArgumentException(KEY + ": global needs the OpenTelemetry API (io.opentelemetry.api) visible to the "
                    + "adapter, and this server shows it none (" + e + "); make it visible, or set off", e);
        }
    }

    /** Loaded only when {@code global} is chosen: off never touches an OpenTelemetry class. */
    private static final class Global {
        static JobTelemetry telemetry() {
            return OpenTelemetryJobs.of(GlobalOpenTelemetry.get());
        }
    }
}
