package io.echomq.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.maintenance.Maintenance;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code echomq.maintenance.timeout-ms}: how long a duty's run is waited for; a bad value names its key. */
class MaintenanceTimeoutConfigTest {

    private static final Map<String, String> SERVERS = Map.of("ECHOMQ_VALKEY_URL", "redis://127.0.0.1:6379",
            "ECHOMQ_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/echomq");

    @Test
    void unsetItIsTheDefaultAndSetItIsTheDutiesTimeout() {
        assertThat(configOf(Map.of()).maintenance().timeout()).isEqualTo(Maintenance.Settings.DEFAULT_TIMEOUT);
        assertThat(configOf(Map.of("ECHOMQ_MAINTENANCE_TIMEOUT_MS", "2500")).maintenance().timeout())
                .isEqualTo(Duration.ofMillis(2500));
    }

    @Test
    void aTimeoutOfNothingFailsNamingTheKey() {
        assertThatThrownBy(() -> configOf(Map.of("ECHOMQ_MAINTENANCE_TIMEOUT_MS", "0")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.maintenance.timeout-ms");
    }

    private static EngineConfig configOf(Map<String, String> environment) {
        Map<String, String> all = new HashMap<>(SERVERS);
        all.putAll(environment);
        return new EngineConfig(ConfigReader.environment(all));
    }
}
