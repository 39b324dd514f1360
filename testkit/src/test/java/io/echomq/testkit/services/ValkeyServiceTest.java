package io.echomq.testkit.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisException;

@WithRealServices
class ValkeyServiceTest {

    @Test
    void valkeyAnswersPingAndReportsItsVersion(ValkeyService valkey) {
        assertThat(valkey.serverVersion()).isNotBlank().matches("\\d+\\.\\d+.*");
        assertThat(valkey.description()).isNotBlank();
        assertThat(valkey.url()).startsWith("redis://").endsWith(valkey.host() + ":" + valkey.port());

        String key = "testkit:" + UUID.randomUUID();
        try (RedisClient client = valkey.newClient()) {
            assertThat(client.ping()).isEqualTo("PONG");
            client.set(key, "value");
            assertThat(client.get(key)).isEqualTo("value");
            client.del(key);
        }
    }

    @Test
    void valkeyRequiresThePasswordWhenItStartedTheServer(ValkeyService valkey) {
        // Only a server we started is guaranteed to have a password; a shared one is whatever it is.
        if (!valkey.isChildProcess()) {
            return;
        }
        assertThat(valkey.password()).isPresent();
        assertThat(valkey.url()).isEqualTo("redis://:" + valkey.password().get() + "@" + valkey.host() + ":" + valkey.port());

        try (RedisClient anonymous = RedisClient.builder()
                .hostAndPort(valkey.host(), valkey.port())
                .clientConfig(DefaultJedisClientConfig.builder().build())
                .build()) {
            assertThatThrownBy(anonymous::ping)
                    .isInstanceOf(JedisException.class)
                    .hasMessageContaining("NOAUTH");
        }
    }

    @Test
    void theUrlFromTheEnvironmentIsUsedAsIs(ValkeyService valkey) {
        StartedValkey fromUrl = EnvironmentValkey.connect(valkey.url());

        assertThat(fromUrl.host()).isEqualTo(valkey.host());
        assertThat(fromUrl.port()).isEqualTo(valkey.port());
        assertThat(fromUrl.password()).isEqualTo(valkey.password());
        assertThat(fromUrl.isChildProcess()).isFalse();
        assertThat(fromUrl.description()).contains(EnvironmentSetting.VALKEY_URL).contains("never flushed");
        try (RedisClient client = fromUrl.newClient()) {
            assertThat(client.ping()).isEqualTo("PONG");
        }
    }
}
