package io.echomq.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.eclipse.microprofile.config.spi.Converter;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

/** The Valkey keys of the configuration: one server or a cluster, and the replica wait; bad values name their key. */
class ValkeyConfigTest {

    private static final Map<String, String> DATABASE = Map.of("echomq.jdbc.url", "jdbc:postgresql://127.0.0.1:5432/echomq");

    @Test
    void aUrlMeansOneServerAndSubmissionsDoNotWaitForReplicasByDefault() {
        EngineConfig config = configOf(Map.of("echomq.valkey.url", "redis://127.0.0.1:6379"));

        assertThat(config.valkey().isCluster()).isFalse();
        assertThat(config.replicaWait().waits()).isFalse();
    }

    @Test
    void clusterNodesMeanAClusterWithItsCredentialsAndReplicaWait() {
        EngineConfig config = configOf(Map.of("echomq.valkey.cluster-nodes", "10.0.0.1:7000, 10.0.0.2:7001",
                "echomq.valkey.password", "secret", "echomq.valkey.wait-replicas", "1", "echomq.valkey.wait-timeout-ms", "250"));

        assertThat(config.valkey().clusterNodes()).containsExactly(new HostAndPort("10.0.0.1", 7000), new HostAndPort("10.0.0.2", 7001));
        assertThat(config.valkey().password()).contains("secret");
        assertThat(config.replicaWait().replicas()).isEqualTo(1);
        assertThat(config.replicaWait().timeout()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void aNodeWithoutAPortFailsNamingTheKey() {
        assertThatThrownBy(() -> configOf(Map.of("echomq.valkey.cluster-nodes", "10.0.0.1:7000,10.0.0.2")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("echomq.valkey.cluster-nodes").hasMessageContaining("ECHOMQ_VALKEY_CLUSTER_NODES")
                .hasMessageContaining("'10.0.0.2'");
    }

    @Test
    void aPortOutOfRangeFailsNamingTheKey() {
        assertThatThrownBy(() -> configOf(Map.of("echomq.valkey.cluster-nodes", "host:70000")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.valkey.cluster-nodes");
    }

    @Test
    void aUrlAndClusterNodesTogetherAreRefused() {
        assertThatThrownBy(() -> configOf(Map.of("echomq.valkey.url", "redis://127.0.0.1:6379",
                "echomq.valkey.cluster-nodes", "127.0.0.1:7000")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.valkey.cluster-nodes");
    }

    @Test
    void neitherUrlNorClusterNodesFailsNamingTheUrl() {
        assertThatThrownBy(() -> configOf(Map.of()))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.valkey.url")
                .hasMessageContaining("echomq.valkey.cluster-nodes");
    }

    @Test
    void waitReplicasOutOfRangeFailsNamingTheKey() {
        assertThatThrownBy(() -> configOf(Map.of("echomq.valkey.url", "redis://127.0.0.1:6379", "echomq.valkey.wait-replicas", "-1")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("echomq.valkey.wait-replicas");
    }

    private static EngineConfig configOf(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(DATABASE);
        all.putAll(values);
        return new EngineConfig(new MapConfig(all));
    }

    /** MicroProfile Config over a map: all the engine reads is {@code getOptionalValue}. */
    private record MapConfig(Map<String, String> values) implements Config {

        @Override
        public <T> Optional<T> getOptionalValue(String name, Class<T> type) {
            return Optional.ofNullable(values.get(name)).map(type::cast);
        }

        @Override
        public <T> T getValue(String name, Class<T> type) {
            return getOptionalValue(name, type).orElseThrow();
        }

        @Override
        public ConfigValue getConfigValue(String name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Iterable<String> getPropertyNames() {
            return values.keySet();
        }

        @Override
        public Iterable<ConfigSource> getConfigSources() {
            return List.of();
        }

        @Override
        public <T> Optional<Converter<T>> getConverter(Class<T> type) {
            return Optional.empty();
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            throw new UnsupportedOperationException();
        }
    }
}
