package io.echomq.queue.internal;

import java.util.List;
import java.util.Optional;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.ClusterShardInfo;
import redis.clients.jedis.resps.ClusterShardNodeInfo;

/**
 * Which master serves each slot, as Valkey reported it at one moment: on a cluster the reply of
 * {@code CLUSTER SHARDS} (typed by Jedis), asked of the node that serves a queue's slot, so it is
 * the cluster's own view rather than the client's cached one; on one server, that server for every
 * slot. For operators (docs/SHARDING.md, section 8); nothing routes by it. Immutable.
 */
public final class SlotMasters {

    /** Slots {@code first} to {@code last}, both included, served by {@code master} ({@code host:port}). */
    private record Range(long first, long last, String master) {
    }

    private final List<Range> ranges;

    private SlotMasters(List<Range> ranges) {
        this.ranges = ranges;
    }

    /**
     * Asks the node serving {@code keys}' slot (the one server of a standalone Valkey) which master
     * serves each slot now.
     */
    public static SlotMasters read(UnifiedJedis redis, QueueKeys keys) {
        try (Connection connection = SlotConnection.of(redis, keys)) {
            if (redis instanceof RedisClusterClient) {
                return ofShards(new Jedis(connection).clusterShards());
            }
            return new SlotMasters(List.of(new Range(0, Long.MAX_VALUE, address(connection.getHostAndPort()))));
        }
    }

    private static SlotMasters ofShards(List<ClusterShardInfo> shards) {
        return new SlotMasters(shards.stream().flatMap(shard -> master(shard.getNodes()).stream()
                .flatMap(master -> shard.getSlots().stream().map(range -> new Range(range.get(0), range.get(1), master)))).toList());
    }

    /** The shard's master as the cluster names it: its preferred endpoint (its IP when it has none) and port. */
    private static Optional<String> master(List<ClusterShardNodeInfo> nodes) {
        return nodes.stream().filter(node -> "master".equals(node.getRole())).findFirst().map(node -> {
            String host = node.getEndpoint() == null || node.getEndpoint().isEmpty() || "?".equals(node.getEndpoint())
                    ? node.getIp() : node.getEndpoint();
            return host + ":" + (node.getPort() != null ? node.getPort() : node.getTlsPort());
        });
    }

    private static String address(HostAndPort server) {
        return server.getHost() + ":" + server.getPort();
    }

    /** The master serving {@code slot}, as {@code host:port}; empty when no master serves it (the cluster is missing that slot). */
    public Optional<String> masterOf(int slot) {
        return ranges.stream().filter(range -> range.first() <= slot && slot <= range.last()).map(Range::master).findFirst();
    }
}
