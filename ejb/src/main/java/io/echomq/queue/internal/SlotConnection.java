package io.echomq.queue.internal;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Semaphore;
import org.apache.commons.pool2.impl.GenericObjectPool;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * One pooled connection to the node that serves a queue's slot, for commands that must run on
 * the same connection as the script before them: {@code WAIT} counts the replicas that have
 * this connection's writes, so on any other connection it would answer at once.
 */
final class SlotConnection {

    private SlotConnection() {
    }

    /** Borrowed from the client's pool; closing it gives it back. */
    static Connection of(UnifiedJedis redis, QueueKeys keys) {
        if (redis instanceof RedisClusterClient cluster) {
            return cluster.getConnectionFromSlot(keys.slot());
        }
        if (redis instanceof RedisClient standalone) {
            return standalone.getPool().getResource();
        }
        throw new IllegalStateException("cannot pick a connection for queue '" + keys.queue() + "' from a "
                + redis.getClass().getSimpleName() + "; use RedisClient or RedisClusterClient");
    }

    /** Per client, as its pools are: the connections calls run together may hold at once. */
    private static final Map<UnifiedJedis, Semaphore> HELD_TOGETHER = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * The connections of {@code redis} that calls run together ({@code ScriptRunner.runTogether})
     * may hold at once, over every runner of that client: half of a pool.
     */
    static Semaphore heldTogether(UnifiedJedis redis) {
        return HELD_TOGETHER.computeIfAbsent(redis, client -> new Semaphore(poolSize(client) / 2));
    }

    /**
     * The most connections the client's pool lends at once (to each node, on a cluster); 0 when
     * it cannot be told.
     */
    private static int poolSize(UnifiedJedis redis) {
        if (redis instanceof RedisClusterClient cluster) {
            return cluster.getClusterNodes().values().stream().mapToInt(SlotConnection::lends).min().orElse(0);
        }
        if (redis instanceof RedisClient standalone) {
            return lends(standalone.getPool());
        }
        return 0;
    }

    private static int lends(GenericObjectPool<Connection> pool) {
        return pool.getMaxTotal() < 0 ? Integer.MAX_VALUE : pool.getMaxTotal();
    }

    /**
     * After a failed or redirected call on a slot connection: the slot may have a new master
     * (failover), so the next connection must come from a fresh view of the cluster.
     */
    static void topologyMayHaveChanged(UnifiedJedis redis) {
        if (redis instanceof RedisClusterClient cluster) {
            cluster.refreshClusterTopology();
        }
    }
}
