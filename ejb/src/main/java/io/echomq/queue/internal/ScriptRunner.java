package io.echomq.queue.internal;

import io.echomq.queue.QueueOutcomeUnknownException;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.ReplicaWait;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
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
 *
 * <p>{@link #runTogether} puts several calls on the wire at once, each on its own connection, so
 * calls to N nodes wait one round trip instead of N, with no thread of its own.
 */
public final class ScriptRunner {

    /** MOVED replies followed for one send-once call (each means the script did not run there). */
    private static final int MAX_REDIRECTS = 2;

    private final UnifiedJedis redis;
    private final ReplicaWait replicaWait;
    private final Map<Script, ScriptSource> sources = new EnumMap<>(Script.class);
    /**
     * Connections that calls run together may hold at once: half of a pool, shared by every
     * runner of the client. A caller in {@link #runTogether} holds connections while it borrows
     * the next one, so without a bound enough such callers could hold a whole pool, each waiting
     * for a connection another holds, forever. Bounded, they hold at most half of any pool between
     * them; the rest is lent to callers that hold one connection and borrow no other before they
     * give it back.
     */
    private final Semaphore connectionsTogether;

    public ScriptRunner(UnifiedJedis redis, ReplicaWait replicaWait) {
        this.redis = redis;
        this.replicaWait = replicaWait;
        for (Script script : Script.values()) {
            sources.put(script, ScriptSource.load(script));
        }
        this.connectionsTogether = SlotConnection.heldTogether(redis);
    }

    /** One script call, to run with others by {@link #runTogether}. */
    public record ScriptCall(Script script, QueueKeys keys, String jobId, List<String> args) {
    }

    /** Runs {@code call} (see {@link #run(Script, QueueKeys, String, List)}). */
    public Object run(ScriptCall call) {
        return run(call.script(), call.keys(), call.jobId(), call.args());
    }

    /**
     * Runs each call as {@link #run(ScriptCall)} does, with the same answers and exceptions, but
     * every call is sent, each on a connection to its slot's node, before any reply is read: calls
     * to different nodes wait one round trip between them, not one each. Each is still sent once
     * (a NOSCRIPT or MOVED reply means it did not run, and is followed as {@code run} follows it).
     * Every reply is read before this returns or throws, so no connection goes back to its pool
     * with a reply unread; when calls fail, the first failure is thrown, after the other calls ran.
     * When too many connections are already held by calls run together, the calls run one after
     * the other instead (see {@link #connectionsTogether}).
     *
     * @return the replies, in the order of {@code calls}
     */
    public List<Object> runTogether(List<ScriptCall> calls) {
        for (ScriptCall call : calls) {
            if (replicaWait.waits() && call.script().acknowledgesSubmission()) {
                throw new IllegalArgumentException(call.script().fileName() + " waits for replicas on its own connection; run it alone");
            }
        }
        if (calls.size() < 2 || !connectionsTogether.tryAcquire(calls.size())) {
            List<Object> replies = new ArrayList<>(calls.size());
            calls.forEach(call -> replies.add(run(call)));
            return replies;
        }
        try {
            return sendAllThenRead(calls);
        } finally {
            connectionsTogether.release(calls.size());
        }
    }

    private List<Object> sendAllThenRead(List<ScriptCall> calls) {
        List<InFlight> sent = new ArrayList<>(calls.size());
        RuntimeException failure = null;
        for (ScriptCall call : calls) {
            try {
                sent.add(send(call));
            } catch (RuntimeException e) {
                failure = e;
                break;
            }
        }
        List<Object> replies = new ArrayList<>(calls.size());
        for (InFlight call : sent) {
            try {
                replies.add(replyTo(call));
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return replies;
    }

    /** Writes {@code call} on a connection to its slot's node and flushes it, without waiting for the reply. */
    private InFlight send(ScriptCall call) {
        ScriptSource source = sources.get(call.script());
        List<String> keyList = call.script().keys(call.keys(), call.jobId());
        // The command and reply Jedis's own evalsha sends and decodes.
        CommandArguments evalsha = new CommandArguments(Protocol.Command.EVALSHA).add(source.sha1()).add(keyList.size()).keys(keyList)
                .addObjects(call.args());
        Connection connection;
        try {
            connection = SlotConnection.of(redis, call.keys());
        } catch (JedisConnectionException | JedisClusterOperationException e) {
            throw unreachable(call.script(), call.keys(), e);
        }
        try {
            connection.sendCommand(evalsha);
            // Reads no reply: getMany flushes the connection's buffer before it reads the count it is given.
            connection.getMany(0);
            return new InFlight(call, source, keyList, connection);
        } catch (RuntimeException e) {
            connection.close();
            if (e instanceof JedisConnectionException lost) {
                SlotConnection.topologyMayHaveChanged(redis);
                throw lostAfterSend(source, call.keys(), call.script().resendable(), lost);
            }
            throw e;
        }
    }

    /** A call sent on {@code connection} whose reply is still to be read. */
    private record InFlight(ScriptCall call, ScriptSource source, List<String> keyList, Connection connection) {
    }

    /** Reads {@code sent}'s reply, gives its connection back, and answers as {@link #run(ScriptCall)} would. */
    private Object replyTo(InFlight sent) {
        ScriptCall call = sent.call();
        try (Connection connection = sent.connection()) {
            try {
                return BuilderFactory.AGGRESSIVE_ENCODED_OBJECT.build(connection.getOne());
            } catch (JedisNoScriptException notCached) {
                return new Jedis(connection).eval(sent.source().text(), sent.keyList(), call.args());
            }
        } catch (JedisMovedDataException moved) {
            // Nothing ran there: run sends it once to the slot's new master, as it follows any MOVED.
            SlotConnection.topologyMayHaveChanged(redis);
            return run(call);
        } catch (JedisConnectionException e) {
            SlotConnection.topologyMayHaveChanged(redis);
            throw lostAfterSend(sent.source(), call.keys(), call.script().resendable(), e);
        } catch (JedisDataException e) {
            if (e instanceof JedisRedirectionException) {
                SlotConnection.topologyMayHaveChanged(redis);
            }
            throw translate(call.script(), call.keys(), e);
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
            throw unreachable(script, keys, e);
        } catch (JedisDataException e) {
            throw translate(script, keys, e);
        }
    }

    private static QueueUnavailableException unreachable(Script script, QueueKeys keys, RuntimeException e) {
        return new QueueUnavailableException("Valkey is unreachable (" + script.fileName() + " on queue '"
                + keys.queue() + "' did not run or its reply was lost; it may be sent again): " + e.getMessage(), e);
    }

    /** A connection that failed once the script was sent: it may have run, so only a resendable script is merely unavailable. */
    private static RuntimeException lostAfterSend(ScriptSource source, QueueKeys keys, boolean resendable, JedisConnectionException e) {
        if (resendable) {
            return unreachable(source.script(), keys, e);
        }
        return new QueueOutcomeUnknownException("the outcome of " + source.script().fileName() + " on queue '"
                + keys.queue() + "' is unknown: the connection to Valkey failed after the script was sent ("
                + e.getMessage() + "), so it may or may not have run; it was not sent again", e);
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
                if (e instanceof JedisConnectionException lost) {
                    throw lostAfterSend(source, keys, resendable, lost);
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
