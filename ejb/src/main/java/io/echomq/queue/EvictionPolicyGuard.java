package io.echomq.queue;

import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Checks at start that the server will not evict queue keys: under any eviction policy a full
 * server silently deletes jobs, which no other part of the queue could detect.
 */
final class EvictionPolicyGuard {

    private static final Logger LOG = Logger.getLogger(EvictionPolicyGuard.class.getName());
    static final String SAFE_POLICY = "noeviction";

    private final UnifiedJedis redis;
    private final EvictionPolicyCheck check;

    EvictionPolicyGuard(UnifiedJedis redis, EvictionPolicyCheck check) {
        this.redis = redis;
        this.check = check;
    }

    void verify() {
        String policy;
        try {
            Map<String, String> reply = redis.configGet("maxmemory-policy");
            policy = reply.getOrDefault("maxmemory-policy", "");
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
