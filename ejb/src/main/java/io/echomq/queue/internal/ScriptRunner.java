package io.echomq.queue.internal;

import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.ReplicaWait;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.JedisCommands;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * The one place that calls scripts. Runs each by its SHA (EVALSHA); when the server does not
 * know it (first use, a restart, a promoted replica, {@code SCRIPT FLUSH}) sends the text once
 * with EVAL, which also caches it on the server. Turns the server's refusals into the queue's
 * exceptions. Scripts that acknowledge a submission are followed by {@code WAIT} on the same
 * connection when the {@link ReplicaWait} asks for replicas.
 */
public final class ScriptRunner {

    private final UnifiedJedis redis;
    private final ReplicaWait replicaWait;
    private final Map<Script, ScriptSource> sources = new EnumMap<>(Script.class);

    public ScriptRunner(UnifiedJedis redis, ReplicaWait replicaWait) {
        this.redis = redis;
        this.replicaWait = replicaWait;
        for (Script script : Script.values()) {
            sources.put(script, ScriptSource.load(script));
        }
    }

    public Object run(Script script, QueueKeys keys, String jobId, List<String> args) {
        List<String> keyList = script.keys(keys, jobId);
        ScriptSource source = sources.get(script);
        try {
            if (replicaWait.waits() && script.acknowledgesSubmission()) {
                return runThenWaitForReplicas(source, keys, keyList, args);
            }
            return evalCached(redis, source, keyList, args);
        } catch (JedisConnectionException | JedisClusterOperationException e) {
            throw new QueueUnavailableException("Valkey is unreachable (" + script.fileName() + " on queue '"
                    + keys.queue() + "' did not run or its reply was lost): " + e.getMessage(), e);
        } catch (JedisDataException e) {
            throw translate(script, keys, e);
        }
    }

    private static Object evalCached(JedisCommands target, ScriptSource source, List<String> keys, List<String> args) {
        try {
            return target.evalsha(source.sha1(), keys, args);
        } catch (JedisNoScriptException notCached) {
            return target.eval(source.text(), keys, args);
        }
    }

    private Object runThenWaitForReplicas(ScriptSource source, QueueKeys keys, List<String> keyList, List<String> args) {
        try (Connection connection = SlotConnection.of(redis, keys)) {
            Jedis node = new Jedis(connection);
            Object reply = evalCached(node, source, keyList, args);
            long confirmed = node.waitReplicas(replicaWait.replicas(), replicaWait.timeout().toMillis());
            if (confirmed < replicaWait.replicas()) {
                throw new QueueUnavailableException("the submission to queue '" + keys.queue() + "' reached the primary but only "
                        + confirmed + " of " + replicaWait.replicas() + " replicas confirmed it within "
                        + replicaWait.timeout().toMillis() + " ms, so it is not acknowledged (a failover could lose it); "
                        + "resubmit with the same idempotency key", null);
            }
            return reply;
        } catch (JedisConnectionException | JedisRedirectionException e) {
            SlotConnection.topologyMayHaveChanged(redis);
            throw e;
        }
    }

    private static RuntimeException translate(Script script, QueueKeys keys, JedisDataException e) {
        String message = String.valueOf(e.getMessage());
        if (message.startsWith("OOM")) {
            return new QueueUnavailableException("Valkey is out of memory (maxmemory reached with noeviction): "
                    + script.fileName() + " on queue '" + keys.queue() + "' was refused and changed nothing", e);
        }
        if (e instanceof JedisRedirectionException || message.startsWith("BUSY") || message.startsWith("LOADING")
                || message.startsWith("MASTERDOWN") || message.startsWith("TRYAGAIN") || message.startsWith("CLUSTERDOWN")) {
            return new QueueUnavailableException("Valkey cannot serve " + script.fileName() + " on queue '"
                    + keys.queue() + "' right now: " + message, e);
        }
        return new IllegalStateException("script " + script.fileName() + " failed on queue '" + keys.queue() + "': " + message, e);
    }
}
