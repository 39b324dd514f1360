package io.echomq.queue.shard;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.limits.QueueLimits;
import java.util.List;
import java.util.Objects;

/**
 * The one owner of a sharded queue's settings (docs/SHARDING.md, sections 4 and 6): pause, the
 * job-event stream's cap and the caps and rate limits. A change is one {@code shard-meta} write on
 * shard 0, which holds the settings and bumps their version, then one version-compared copy per
 * other shard, so a change sent again is harmless and a late copy never puts back an older one.
 * When a change returns, every shard enforces it. A crash between the write and the copies leaves
 * shards behind until {@link #sync()} (the {@link ShardMetaSync} duty) copies shard 0's settings over.
 * Each shard enforces its own part of a queue-wide cap or rate; the parts sum to the limit. Thread-safe.
 */
final class ShardMeta {

    private final ShardLayout layout;
    private final ScriptRunner scripts;

    ShardMeta(ShardLayout layout, ScriptRunner scripts) {
        this.layout = layout;
        this.scripts = scripts;
    }

    /**
     * Checks that {@code queue} is the queue these settings belong to: a client of a sharded queue
     * serves that one queue, and another name is the caller's mistake, named as such.
     *
     * @throws InvalidRequestException naming {@code queue}
     */
    ShardMeta of(String queue) {
        layout.checkQueue(queue);
        return this;
    }

    /** Pauses ({@code true}) or resumes claims on every shard; the settings after. */
    ShardSettings setPaused(boolean paused) {
        return writeAndCopy(paused ? "1" : "0", "", "", "");
    }

    /** Caps every shard's job-event stream at about {@code maxLength} entries, 0 for none (see {@link QueueAdmin#setEventStream}). */
    ShardSettings setEventStream(int maxLength) {
        RequestChecks.range("maxLength", maxLength, 0, QueueAdmin.MAX_EVENT_STREAM_LENGTH);
        return writeAndCopy("", Integer.toString(maxLength), "", "");
    }

    /**
     * Sets the queue's limits: each shard enforces its part of a queue-wide cap or rate (the parts
     * sum to it), and the lane limits as they are.
     *
     * @throws InvalidRequestException naming the field at fault, also a queue-wide cap or rate below the shard count
     */
    ShardSettings setLimits(QueueLimits limits, LimitsSource source) {
        Objects.requireNonNull(limits, "limits").check();
        limits.maxActive().ifPresent(cap -> atLeastOnePerShard("maxActive", cap));
        limits.rate().ifPresent(rate -> atLeastOnePerShard("rate.starts", rate.starts()));
        return writeAndCopy("", "", String.join(",", limits.wireFields()), source.wireName());
    }

    /**
     * Makes the settings shard 0 holds the sharded queue's, for the layout just recorded, and copies
     * them to every other shard: a queue that had one shard keeps its pause, event cap and limits
     * (its whole limits become the queue-wide ones, split into parts), and a queue whose shard count
     * changed has its parts computed again for the new count. Run at connect, after the layout.
     *
     * @param claimedByShardZero the limits shard 0's claim reads now: the queue's whole limits when it
     *                           had one shard (shard 0 holds no queue-wide limits then)
     * @throws ShardCountRefusedException naming {@code echomq.queues.<q>.shards} when a queue-wide cap
     *                                    or rate is below the shard count (a shard would get a part of 0), before anything is written
     */
    ShardSettings adopt(QueueLimits claimedByShardZero) {
        ShardSettings now = read();
        refuseBelowShardCount(now.limits().isEmpty() ? claimedByShardZero : now.limitsInForce().limits());
        QueueKeys zero = layout.keys(0);
        ShardSettings adopted = Replies.shardSettings(scripts.run(Script.SHARD_META, zero, null,
                List.of(zero.prefix(), "adopt", "", "", "", "", "")));
        copyToOtherShards(adopted);
        return adopted;
    }

    /** Shard 0's settings now: one read of one shard. */
    ShardSettings read() {
        return readShard(0);
    }

    /**
     * The version of the settings shard {@code shard} holds now: shard 0's own, another shard's the
     * version of the last copy it took (0 before any). A shard whose version is below shard 0's is
     * behind: {@link #sync()} copies to it.
     */
    long versionOf(int shard) {
        return readShard(shard).version();
    }

    private ShardSettings readShard(int shard) {
        QueueKeys keys = layout.keys(shard);
        return Replies.shardSettings(scripts.run(Script.SHARD_META, keys, null, List.of(keys.prefix(), "read", "", "", "", "", "")));
    }

    /** Copies shard 0's settings to every shard whose copy is older; answers how many shards took it. */
    int sync() {
        return copyToOtherShards(read());
    }

    /** Writes a change on shard 0 only, as a crash right after it would leave the queue (for tests). */
    ShardSettings writeOnShardZero(String paused, String eventsMax, String limits, String source) {
        QueueKeys zero = layout.keys(0);
        return Replies.shardSettings(scripts.run(Script.SHARD_META, zero, null,
                List.of(zero.prefix(), "write", "", paused, eventsMax, limits, source)));
    }

    /** Copies {@code settings} to one shard; true when it took them (its copy was older). */
    boolean copyTo(int shard, ShardSettings settings) {
        QueueKeys keys = layout.keys(shard);
        return Replies.shardSettingsCopied(scripts.run(Script.SHARD_META, keys, null, List.of(keys.prefix(), "copy",
                Long.toString(settings.version()), settings.paused() ? "1" : "0", settings.eventsMax(), settings.limits(),
                settings.source())));
    }

    private ShardSettings writeAndCopy(String paused, String eventsMax, String limits, String source) {
        ShardSettings written = writeOnShardZero(paused, eventsMax, limits, source);
        if (!written.kept()) {
            copyToOtherShards(written);
        }
        return written;
    }

    private int copyToOtherShards(ShardSettings settings) {
        int copied = 0;
        for (int shard = 1; shard < layout.shards(); shard++) {
            copied += copyTo(shard, settings) ? 1 : 0;
        }
        return copied;
    }

    private void refuseBelowShardCount(QueueLimits limits) {
        limits.maxActive().filter(cap -> cap < layout.shards()).ifPresent(cap -> refuseShardCount("cap (maxActive)", cap));
        limits.rate().filter(rate -> rate.starts() < layout.shards()).ifPresent(rate -> refuseShardCount("rate (rate.starts)", rate.starts()));
    }

    private void refuseShardCount(String limit, int value) {
        String queue = layout.queue();
        throw new ShardCountRefusedException("echomq.queues." + queue + ".shards: queue '" + queue + "' cannot have " + layout.shards()
                + " shards while its queue-wide " + limit + " is " + value + ": each shard enforces its part of it, and a part of 0 "
                + "would stop that shard's lanes (docs/SHARDING.md, section 4); raise the limit to at least " + layout.shards()
                + " first, or use at most " + value + " shards");
    }

    /** A queue-wide count below N would leave some shards a part of 0, whose lanes would never run. */
    private void atLeastOnePerShard(String field, int count) {
        if (count < layout.shards()) {
            throw new InvalidRequestException(field, "is " + count + ", below the queue's " + layout.shards()
                    + " shards: each shard enforces its part of a queue-wide limit, and a part of 0 would stop that shard's lanes "
                    + "(docs/SHARDING.md, section 4); use at least " + layout.shards());
        }
    }
}
