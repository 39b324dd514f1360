package io.echomq.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code echomq.queues.<q>.shards}: one shard unless a queue says otherwise; a bad value names its key. */
class ShardsConfigTest {

    private static final Map<String, String> SERVERS = Map.of("ECHOMQ_VALKEY_URL", "redis://127.0.0.1:6379",
            "ECHOMQ_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/echomq");

    @Test
    void aQueueHasOneShardUnlessItsOwnKeySaysHowMany() {
        EngineConfig config = configOf(Map.of("ECHOMQ_QUEUES_ORDERS_SHARDS", "3"));

        assertThat(config.shardsFor("orders")).isEqualTo(3);
        assertThat(config.shardsFor("emails")).isEqualTo(1);
    }

    @Test
    void noShardsOrMoreThanSixtyFourFailNamingTheKey() {
        assertThatThrownBy(() -> configOf(Map.of("ECHOMQ_QUEUES_ORDERS_SHARDS", "0")).shardsFor("orders"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.queues.orders.shards");
        assertThatThrownBy(() -> configOf(Map.of("ECHOMQ_QUEUES_ORDERS_SHARDS", "65")).shardsFor("orders"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.queues.orders.shards");
        assertThatThrownBy(() -> configOf(Map.of("ECHOMQ_QUEUES_ORDERS_SHARDS", "three")).shardsFor("orders"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.queues.orders.shards");
    }

    private static EngineConfig configOf(Map<String, String> environment) {
        Map<String, String> all = new HashMap<>(SERVERS);
        all.putAll(environment);
        return new EngineConfig(ConfigReader.environment(all));
    }
}
