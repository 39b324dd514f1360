package io.echomq.testkit.services;

import java.time.Duration;
import java.util.Optional;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisException;

/** Asks a server whether it is up and what it is, with a plain connection (no pool to clean up). */
public final class ValkeyProbe {

    private ValkeyProbe() {
    }

    /** From {@code INFO server}. Valkey reports both {@code redis_version} (compatibility) and {@code valkey_version}. */
    public record ServerInfo(String serverName, String version) {

        boolean isValkey() {
            return serverName.equalsIgnoreCase("valkey");
        }

        int majorVersion() {
            try {
                return Integer.parseInt(version.split("\\.")[0]);
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        /** What the description says when this is not the Valkey 8 the design targets. */
        public String differenceFromTarget() {
            if (!isValkey()) {
                return " (not Valkey 8: Redis-compatible)";
            }
            return majorVersion() < 8 ? " (Valkey " + majorVersion() + ", not 8)" : "";
        }
    }

    public static JedisClientConfig config(Optional<String> user, Optional<String> password) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                // The plain Jedis connection speaks RESP2 and warns on every connect unless told not to negotiate.
                .serverDefaultProtocol()
                .connectionTimeoutMillis(1000)
                .socketTimeoutMillis(5000);
        user.ifPresent(config::user);
        password.ifPresent(config::password);
        return config.build();
    }

    /**
     * Polls PING until PONG. Stops early when {@code server} (if we started it) has died, or when
     * the server answers but refuses our credentials: waiting longer cannot fix either.
     */
    public static void awaitPong(String host, int port, JedisClientConfig config, Duration timeout, Optional<ChildProcess> server) {
        long deadline = System.nanoTime() + timeout.toNanos();
        JedisException last = null;
        while (true) {
            try (Jedis jedis = new Jedis(new HostAndPort(host, port), config)) {
                if ("PONG".equalsIgnoreCase(jedis.ping())) {
                    return;
                }
            } catch (JedisException e) {
                last = e;
                String message = String.valueOf(e.getMessage());
                if (message.contains("WRONGPASS") || message.contains("NOAUTH") || message.contains("invalid password")) {
                    throw new IllegalStateException(host + ":" + port + " refused the credentials: " + message, e);
                }
            }
            if (server.isPresent() && !server.get().isAlive()) {
                throw new IllegalStateException(server.get() + " exited before answering PING\n" + server.get().logTail(), last);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no PONG from " + host + ":" + port + " within " + timeout
                        + server.map(s -> "\n" + s.logTail()).orElse(""), last);
            }
            sleep(50);
        }
    }

    public static ServerInfo serverInfo(String host, int port, JedisClientConfig config) {
        try (Jedis jedis = new Jedis(new HostAndPort(host, port), config)) {
            String name = "redis";
            String redisVersion = "";
            String valkeyVersion = "";
            for (String line : jedis.info("server").split("\r?\n")) {
                if (line.startsWith("server_name:")) {
                    name = line.substring("server_name:".length()).trim();
                } else if (line.startsWith("redis_version:")) {
                    redisVersion = line.substring("redis_version:".length()).trim();
                } else if (line.startsWith("valkey_version:")) {
                    valkeyVersion = line.substring("valkey_version:".length()).trim();
                }
            }
            if (!valkeyVersion.isEmpty()) {
                return new ServerInfo("valkey", valkeyVersion);
            }
            return new ServerInfo(name, redisVersion);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the server", e);
        }
    }
}
