package io.echomq.queue.internal;

import io.echomq.queue.QueueOutcomeUnknownException;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.ReplicaWait;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.JedisCommands;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * The one place that calls scripts. Runs each by its SHA (EVALSHA); when the server does not
 * know it (first use, a restart, a promoted replica, {@code SCRIPT FLUSH}) sends the text once
 * with EVAL, which also caches it on the server. Turns the server's refusals into the queue's
 * exceptions. Scripts that acknowledge a submission are followed by {@code WAIT} on the same
 * connection when the {@link ReplicaWait} asks for replicas.
 *
 * <p>Nothing is sent twice on the caller's behalf unless a second run is harmless: a
 * {@linkplain Script#resendable() resendable} script, or a submission whose every job carries an
 * idempotency key, goes through the client, which may resend it after a connection error (the
 * cluster client does). Every other script is sent once, on one connection to its slot's node:
 * a failure before it was sent, or a refusal that ran nothing (MOVED, ASK, NOSCRIPT, BUSY,
 * out of memory, READONLY), is the queue's unavailability (or is followed to the right node, for MOVED);
 * a connection error after it was sent is a {@link QueueOutcomeUnknownException}.
 */
public final class ScriptRunner {

    /** MOVED replies followed for one send-once call (each means the script did not run there). */
    private static final int MAX_REDIRECTS = 2;

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

    /** Runs {@code script}; sent once unless the script is {@linkplain Script#resendable() resendable}. */
    public Object run(Script script, QueueKeys keys, String jobId, List<String> args) {
        return run(script, keys, jobId, args, script.resendable());
    }

    /**
     * Runs a submission whose every job carries an idempotency key: a resend answers the jobs the
     * first run created, so the client may resend it after a lost reply.
     */
    public Object runKeyedSubmission(Script script, QueueKeys keys, List<String> args) {
        if (!script.acknowledgesSubmission()) {
            throw new IllegalArgumentException(script.fileName() + " is not a submission");
        }
        return run(script, keys, null, args, true);
    }

    private Object run(Script script, QueueKeys keys, String jobId, List<String> args, boolean resendable) {
        List<String> keyList = script.keys(keys, jobId);
        ScriptSource source = sources.get(script);
        boolean waitForReplicas = replicaWait.waits() && script.acknowledgesSubmission();
        try {
            if (resendable && !waitForReplicas) {
                return evalCached(redis, source, keyList, args);
            }
            return sendOnce(source, keys, keyList, args, waitForReplicas, resendable);
        } catch (JedisConnectionException | JedisClusterOperationException e) {
            throw new QueueUnavailableException("Valkey is unreachable (" + script.fileName() + " on queue '"
                    + keys.queue() + "' did not run or its reply was lost; it may be sent again): " + e.getMessage(), e);
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

    /**
     * One send on one connection to the node serving the queue's slot; a MOVED reply (nothing
     * ran) is followed to the new master at most {@link #MAX_REDIRECTS} times. A connection
     * error before the send is thrown as it is (the caller reports unavailability); after the
     * send it is an unknown outcome unless the call is resendable.
     */
    private Object sendOnce(ScriptSource source, QueueKeys keys, List<String> keyList, List<String> args, boolean waitForReplicas,
            boolean resendable) {
        for (int redirects = 0; ; redirects++) {
            Connection connection = SlotConnection.of(redis, keys);
            try (connection) {
                Jedis node = new Jedis(connection);
                Object reply = evalCached(node, source, keyList, args);
                if (waitForReplicas) {
                    waitForReplicas(node, keys);
                }
                return reply;
            } catch (JedisMovedDataException moved) {
                SlotConnection.topologyMayHaveChanged(redis);
                if (redirects >= MAX_REDIRECTS) {
                    throw moved;
                }
            } catch (JedisConnectionException | JedisRedirectionException e) {
                SlotConnection.topologyMayHaveChanged(redis);
                if (e instanceof JedisConnectionException && !resendable) {
                    throw new QueueOutcomeUnknownException("the outcome of " + source.script().fileName() + " on queue '"
                            + keys.queue() + "' is unknown: the connection to Valkey failed after the script was sent ("
                            + e.getMessage() + "), so it may or may not have run; it was not sent again", e);
                }
                throw e;
            }
        }
    }

    private void waitForReplicas(Jedis node, QueueKeys keys) {
        long confirmed = node.waitReplicas(replicaWait.replicas(), replicaWait.timeout().toMillis());
        if (confirmed < replicaWait.replicas()) {
            throw new QueueUnavailableException("the submission to queue '" + keys.queue() + "' reached the primary but only "
                    + confirmed + " of " + replicaWait.replicas() + " replicas confirmed it within "
                    + replicaWait.timeout().toMillis() + " ms, so it is not acknowledged (a failover could lose it); "
                    + "resubmit with the same idempotency key", null);
        }
    }

    private static RuntimeException translate(Script script, QueueKeys keys, JedisDataException e) {
        Optional<String> refused = ValkeyCommands.refusedUnchanged(e);
        if (refused.isPresent()) {
            return new QueueUnavailableException(refused.get() + ": " + script.fileName() + " on queue '" + keys.queue()
                    + "' was refused and changed nothing", e);
        }
        String message = String.valueOf(e.getMessage());
        if (e instanceof JedisRedirectionException || message.startsWith("BUSY") || message.startsWith("LOADING")
                || message.startsWith("MASTERDOWN") || message.startsWith("TRYAGAIN") || message.startsWith("CLUSTERDOWN")) {
            return new QueueUnavailableException("Valkey cannot serve " + script.fileName() + " on queue '"
                    + keys.queue() + "' right now: " + message, e);
        }
        return new IllegalStateException("script " + script.fileName() + " failed on queue '" + keys.queue() + "': " + message, e);
    }
}
