package io.echomq.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Checks at start that the server will not evict queue keys: under any eviction policy a full
 * server silently deletes jobs, which no other part of the queue could detect.
 */
final class EvictionPolicyGuard {

    private static final Logger LOG = Logger.getLogger(EvictionPolicyGuard.class.getName());
    static final String SAFE_POLICY = "noeviction";
    private static final String POLICY = "maxmemory-policy";

    private final UnifiedJedis redis;
    private final EvictionPolicyCheck check;

    EvictionPolicyGuard(UnifiedJedis redis, EvictionPolicyCheck check) {
        this.redis = redis;
        this.check = check;
    }

    /** One server's policy, or every cluster node's: each master holds some queues, each replica may become one. */
    private List<String> policiesOfEveryNode() {
        if (!(redis instanceof RedisClusterClient cluster)) {
            return List.of(policyIn(redis.configGet(POLICY)));
        }
        List<String> policies = new ArrayList<>();
        for (ConnectionPool node : cluster.getClusterNodes().values()) {
            try (Connection connection = node.getResource()) {
                policies.add(policyIn(new Jedis(connection).configGet(POLICY)));
            }
        }
        return policies;
    }

    private static String policyIn(Map<String, String> reply) {
        return reply.getOrDefault(POLICY, "");
    }

    void verify() {
        String policy;
        try {
            policy = policiesOfEveryNode().stream().filter(p -> !SAFE_POLICY.equals(p)).findFirst().orElse(SAFE_POLICY);
        } catch (JedisException e) {
            // Managed services often disable CONFIG; the operator must then vouch for the policy.
            LOG.log(Level.WARNING, "EchoMQ could not read the Valkey maxmemory-policy ({0}); make sure it is "
                    + "'noeviction', or a full server will silently delete jobs", e.getMessage());
            return;
        }
        if (SAFE_POLICY.equals(policy)) {
            return;
        }
        String message = "Valkey maxmemory-policy is '" + policy + "': when memory fills, the server will silently "
                + "delete queue keys and jobs will be lost. Set 'maxmemory-policy noeviction' (then a full server "
                + "refuses new jobs instead of losing old ones).";
        if (check == EvictionPolicyCheck.REFUSE) {
            throw new UnsafeServerException(message);
        }
        LOG.warning("!!! " + message + " !!!");
    }
}
