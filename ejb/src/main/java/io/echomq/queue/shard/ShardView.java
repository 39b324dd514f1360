package io.echomq.queue.shard;

import io.echomq.queue.QueueStats;
import io.echomq.queue.limits.QueueLimits;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One shard of a queue as an operator sees it (docs/SHARDING.md, section 8): where its keys live
 * and what it holds. A queue of one shard is one such shard, shard 0.
 *
 * @param shard           its index, 0 to N − 1
 * @param tag             the hash tag of its keys ({@code q} for shard 0, {@code q#s.k} for the others)
 * @param slot            the cluster slot of that tag
 * @param master          {@code host:port} of the master serving the slot, as the cluster reports it (the
 *                        one server of a standalone Valkey); empty when no master serves the slot
 * @param stats           this shard's own counts, lanes and paused flag
 * @param limits          the limits this shard enforces: its part of a queue-wide cap or rate, the lane
 *                        limits as they are (on a queue of one shard, the queue's limits)
 * @param settingsVersion the version ({@code meta_version}) of the settings the shard holds; empty on a
 *                        queue of one shard, whose settings are never copied
 * @param settingsBehind  true when that version is older than shard 0's: the shard still enforces older
 *                        settings until the {@code shard-settings} duty copies shard 0's to it
 */
public record ShardView(int shard, String tag, int slot, Optional<String> master, QueueStats stats, QueueLimits limits,
        OptionalLong settingsVersion, boolean settingsBehind) {
}
