package io.echomq.runtime;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where the queues live: one server named by a {@code redis://} URL, or a Valkey Cluster named by
 * some of its nodes (the client discovers the rest and follows failovers). Either way the engine
 * gets one {@link UnifiedJedis}; a queue's keys share a hash tag, so on a cluster each queue lives
 * whole on the master of its slot.
 *
 * @param url          the one server, when not a cluster
 * @param clusterNodes seed nodes of the cluster; empty for one server
 * @param user         the cluster's ACL user (one server: inside the URL)
 * @param password     the cluster's password (one server: inside the URL)
 */
public record ValkeyEndpoint(Optional<String> url, List<HostAndPort> clusterNodes, Optional<String> user,
                             Optional<String> password) {

    private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(1);
    private static final Duration CALL_RETRIES = Duration.ofSeconds(4);

    public static ValkeyEndpoint server(String url) {
        return new ValkeyEndpoint(Optional.of(url), List.of(), Optional.empty(), Optional.empty());
    }

    public static ValkeyEndpoint cluster(List<HostAndPort> seeds, Optional<String> user, Optional<String> password) {
        return new ValkeyEndpoint(Optional.empty(), List.copyOf(seeds), user, password);
    }

    public boolean isCluster() {
        return !clusterNodes.isEmpty();
    }

    /**
     * Seed nodes written {@code host:port}; a bad one fails naming {@code key}.
     *
     * @throws ConfigurationException naming {@code key}
     */
    public static List<HostAndPort> parseNodes(String key, List<String> nodes) {
        if (nodes.isEmpty()) {
            throw new ConfigurationException(key, "must list at least one node as host:port");
        }
        return nodes.stream().map(node -> parseNode(key, node)).toList();
    }

    private static HostAndPort parseNode(String key, String given) {
        String node = given.strip();
        int colon = node.lastIndexOf(':');
        String host = colon < 0 ? "" : node.substring(0, colon).replaceAll("^\\[|]$", "");
        int port;
        try {
            port = colon < 0 ? -1 : Integer.parseInt(node.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isBlank() || port < 1 || port > 65_535) {
            throw new ConfigurationException(key, "must list nodes as host:port (port 1-65535), comma-separated; '"
                    + node + "' is not one");
        }
        return new HostAndPort(host, port);
    }

    /** A pooled client of at most {@code poolSize} connections (per node, on a cluster); the caller closes it. */
    public UnifiedJedis open(int poolSize) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(poolSize);
        pool.setMaxIdle(poolSize);
        if (!isCluster()) {
            return RedisClient.builder().fromURI(url.orElseThrow()).poolConfig(pool).build();
        }
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder();
        user.ifPresent(config::user);
        password.ifPresent(config::password);
        return RedisClusterClient.builder().nodes(new LinkedHashSet<>(clusterNodes)).clientConfig(config.build())
                .poolConfig(pool)
                // Jedis re-reads the slot map only on its last retry; refreshing it every second
                // lets calls find a promoted replica about a second after the promotion.
                .topologyRefreshPeriod(TOPOLOGY_REFRESH)
                // A call gives up (QueueUnavailableException, retried by its caller) instead of
                // blocking its thread for the default 10 s while a master is down. The client's
                // own resends after a connection error reach only reads and the scripts a second run
                // leaves harmless: ScriptRunner sends every other script once, on one connection to
                // its slot, and reports a lost reply as QueueOutcomeUnknownException.
                .maxTotalRetriesDuration(CALL_RETRIES)
                .build();
    }
}
