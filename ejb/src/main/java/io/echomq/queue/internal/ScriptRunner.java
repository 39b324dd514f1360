package io.echomq.queue.internal;

import io.echomq.queue.QueueUnavailableException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The one place that calls scripts. Runs each by its SHA (EVALSHA); when the server does not
 * know it (first use, a restart, {@code SCRIPT FLUSH}) sends the text once with EVAL, which
 * also caches it on the server. Turns the server's refusals into the queue's exceptions.
 */
public final class ScriptRunner {

    private final UnifiedJedis redis;
    private final Map<Script, ScriptSource> sources = new EnumMap<>(Script.class);

    public ScriptRunner(UnifiedJedis redis) {
        this.redis = redis;
        for (Script script : Script.values()) {
            sources.put(script, ScriptSource.load(script));
        }
    }

    public Object run(Script script, QueueKeys keys, String jobId, List<String> args) {
        List<String> keyList = script.keys(keys, jobId);
        ScriptSource source = sources.get(script);
        try {
            try {
                return redis.evalsha(source.sha1(), keyList, args);
            } catch (JedisNoScriptException notCached) {
                return redis.eval(source.text(), keyList, args);
            }
        } catch (JedisConnectionException e) {
            throw new QueueUnavailableException("Valkey is unreachable (" + script.fileName() + " on queue '"
                    + keys.queue() + "' did not run or its reply was lost): " + e.getMessage(), e);
        } catch (JedisDataException e) {
            throw translate(script, keys, e);
        }
    }

    private static RuntimeException translate(Script script, QueueKeys keys, JedisDataException e) {
        String message = String.valueOf(e.getMessage());
        if (message.startsWith("OOM")) {
            return new QueueUnavailableException("Valkey is out of memory (maxmemory reached with noeviction): "
                    + script.fileName() + " on queue '" + keys.queue() + "' was refused and changed nothing", e);
        }
        if (message.startsWith("BUSY") || message.startsWith("LOADING") || message.startsWith("MASTERDOWN")
                || message.startsWith("TRYAGAIN") || message.startsWith("CLUSTERDOWN")) {
            return new QueueUnavailableException("Valkey cannot serve " + script.fileName() + " on queue '"
                    + keys.queue() + "' right now: " + message, e);
        }
        return new IllegalStateException("script " + script.fileName() + " failed on queue '" + keys.queue() + "': " + message, e);
    }
}
