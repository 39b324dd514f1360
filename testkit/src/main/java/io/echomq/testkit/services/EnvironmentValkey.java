package io.echomq.testkit.services;

import java.time.Duration;
import java.util.Optional;
import redis.clients.jedis.JedisClientConfig;

/**
 * A server somebody else runs, named by {@code ECHOMQ_TEST_VALKEY_URL}. Used as-is and never
 * stopped or flushed: it may be shared, so tests isolate by unique key names.
 */
public final class EnvironmentValkey {

    private EnvironmentValkey() {
    }

    public static StartedValkey connect(String url) {
        ValkeyAddress address = ValkeyAddress.parse(url);
        JedisClientConfig config = ValkeyProbe.config(address.user(), address.password());
        ValkeyProbe.awaitPong(address.host(), address.port(), config, Duration.ofSeconds(5), Optional.empty());
        ValkeyProbe.ServerInfo info = ValkeyProbe.serverInfo(address.host(), address.port(), config);
        String description = info.serverName() + " " + info.version() + " from " + EnvironmentSetting.VALKEY_URL
                + " at " + address.host() + ":" + address.port() + info.differenceFromTarget() + " (shared: never flushed)";
        return new StartedValkey(address.host(), address.port(), address.user(), address.password(),
                description, info.version(), false, () -> { });
    }
}
