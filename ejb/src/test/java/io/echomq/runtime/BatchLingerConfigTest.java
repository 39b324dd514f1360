package io.echomq.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code echomq.worker.batch-linger-ms} and its per-queue override; a bad value names its key. */
class BatchLingerConfigTest {

    private static final Map<String, String> SERVERS = Map.of("ECHOMQ_VALKEY_URL", "redis://127.0.0.1:6379",
            "ECHOMQ_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/echomq");

    @Test
    void unsetItIsTheDefaultAndSetItIsTheLingerOfEveryQueueUnlessOneSaysOtherwise() {
        assertThat(configOf(Map.of()).workerFor("payments").batchLinger()).isEqualTo(WorkerSettings.DEFAULT_BATCH_LINGER);
        EngineConfig config = configOf(Map.of("ECHOMQ_WORKER_BATCH_LINGER_MS", "0", "ECHOMQ_QUEUES_PAYMENTS_BATCH_LINGER_MS", "12"));
        assertThat(config.workerFor("emails").batchLinger()).isEqualTo(Duration.ZERO);
        assertThat(config.workerFor("payments").batchLinger()).isEqualTo(Duration.ofMillis(12));
    }

    @Test
    void aLingerOverASecondFailsNamingTheKey() {
        assertThatThrownBy(() -> configOf(Map.of("ECHOMQ_WORKER_BATCH_LINGER_MS", "1001")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.worker.batch-linger-ms");
    }

    private static EngineConfig configOf(Map<String, String> environment) {
        Map<String, String> all = new HashMap<>(SERVERS);
        all.putAll(environment);
        return new EngineConfig(ConfigReader.environment(all));
    }
}
