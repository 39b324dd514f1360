package io.echomq.testkit;

import io.echomq.testkit.services.ValkeyAddress;
import java.util.Optional;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * A real Valkey (or Redis-compatible) server for tests, injected by {@link RealServices}.
 *
 * <p>The server may be shared with other test classes, other modules' builds or other people (when
 * it comes from {@code ECHOMQ_TEST_VALKEY_URL}): isolate by unique key names, and never
 * {@code FLUSHALL}/{@code FLUSHDB}.
 */
public interface ValkeyService {

    String host();

    int port();

    /** The ACL user, when the server was given as {@code redis://user:password@host:port}. */
    default Optional<String> user() {
        return Optional.empty();
    }

    Optional<String> password();

    /** {@code redis://[:password@]host:port}, the form the application's configuration takes. */
    default String url() {
        return ValkeyAddress.format(host(), port(), user(), password());
    }

    /** Where the server came from, for logs: e.g. "redis-server 7.0.15, child process on 127.0.0.1:41234". */
    String description();

    /** {@code valkey_version} from {@code INFO server}, else {@code redis_version}. */
    String serverVersion();

    /** True when this test run started the server itself (and will stop it). */
    boolean isChildProcess();

    /** Connection settings with the credentials filled in, for callers that build their own client. */
    default JedisClientConfig clientConfig() {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder();
        user().ifPresent(config::user);
        password().ifPresent(config::password);
        return config.build();
    }

    /** A new pooled client; the caller closes it. */
    default RedisClient newClient() {
        return RedisClient.builder().hostAndPort(host(), port()).clientConfig(clientConfig()).build();
    }
}
