package io.echomq.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code echomq.events.max-length} (every queue), {@code echomq.queues.<queue>.events.max-length}
 * (one queue; 0 turns its stream off) and {@code echomq.events.max-readers}; a bad value names its key.
 */
class EventStreamConfigTest {

    private static final Map<String, String> SERVERS = Map.of("ECHOMQ_VALKEY_URL", "redis://127.0.0.1:6379",
            "ECHOMQ_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/echomq");

    @Test
    void aQueuesOwnCapWinsOverEveryQueuesWhichWinsOverTheDefault() {
        assertThat(configOf(Map.of()).eventStreamLengthFor("orders")).isEqualTo(EngineConfig.DEFAULT_EVENT_STREAM_LENGTH);
        EngineConfig config = configOf(Map.of("ECHOMQ_EVENTS_MAX_LENGTH", "500", "ECHOMQ_QUEUES_ORDERS_EVENTS_MAX_LENGTH", "0"));
        assertThat(config.eventStreamLengthFor("orders")).as("off for this queue").isZero();
        assertThat(config.eventStreamLengthFor("mail")).isEqualTo(500);
        assertThat(config.eventStreamReaders()).isEqualTo(EngineConfig.DEFAULT_EVENT_STREAM_READERS);
    }

    @Test
    void aBadValueFailsNamingItsKey() {
        assertThatThrownBy(() -> configOf(Map.of("ECHOMQ_EVENTS_MAX_LENGTH", "-1")).eventStreamLengthFor("orders"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.events.max-length");
        assertThatThrownBy(() -> configOf(Map.of("ECHOMQ_QUEUES_ORDERS_EVENTS_MAX_LENGTH", "lots")).eventStreamLengthFor("orders"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.queues.orders.events.max-length");
        assertThatThrownBy(() -> configOf(Map.of("ECHOMQ_EVENTS_MAX_READERS", "0")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.events.max-readers");
    }

    private static EngineConfig configOf(Map<String, String> environment) {
        Map<String, String> all = new HashMap<>(SERVERS);
        all.putAll(environment);
        return new EngineConfig(ConfigReader.environment(all));
    }
}
