package io.echomq.queue.shard;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.internal.ValkeyCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * Records a queue's shard layout in Valkey (docs/SHARDING.md, 1 and 10): each shard's meta learns
 * how it mints ids ({@code shard-layout}), so that ids are unique over the shards and name their
 * shard. A queue of one shard records nothing, so today's queues are left exactly as they are.
 */
public final class ShardLayouts {

    /** What {@code shard-layout} records on shard 0: the shard count its ids were minted for. */
    private static final String RECORDED_SHARDS = "id_stride";

    private final UnifiedJedis redis;
    private final ScriptRunner scripts;

    public ShardLayouts(UnifiedJedis redis, ScriptRunner scripts) {
        this.redis = redis;
        this.scripts = scripts;
    }

    /** The shard count recorded for {@code queue} on its shard 0 (1 when none was). */
    public int recordedShards(String queue) {
        return recordedShards(redis, queue);
    }

    /** The shard count recorded for {@code queue} on its shard 0 (1 when none was), read over {@code redis}. */
    public static int recordedShards(UnifiedJedis redis, String queue) {
        String recorded = ValkeyCommands.read(() -> redis.hget(new QueueKeys(queue).meta(), RECORDED_SHARDS));
        return recorded == null ? 1 : Integer.parseInt(recorded);
    }

    /**
     * Records {@code layout} on every shard; recording it again changes nothing. Under another
     * count, shards 1 to N − 1 have other tags (each shard's slot depends on N), so a change also
     * retires the old layout's other shards. Every shard of both layouts is checked before any is
     * written, so a refused change leaves the queue as it was. Engines still running with the old
     * count must be stopped first: a job they submit during the change is not seen by the check.
     *
     * @throws ShardCountRefusedException when a shard holds jobs minted under another count
     */
    public void record(ShardLayout layout) {
        List<Step> steps = new ArrayList<>();
        int recorded = recordedShards(layout.queue());
        if (recorded != layout.shards()) {
            ShardLayout old = ShardLayout.of(layout.queue(), recorded);
            for (int shard = 1; shard < old.shards(); shard++) {
                steps.add(new Step(old.keys(shard), 1, 0));
            }
        }
        for (int shard = 0; shard < layout.shards(); shard++) {
            steps.add(new Step(layout.keys(shard), layout.shards(), shard));
        }
        for (Step step : steps) {
            run(step, "check").ifPresent(refusal -> {
                throw refused(layout, refusal);
            });
        }
        for (Step step : steps) {
            run(step, "record").ifPresent(refusal -> {
                throw refused(layout, refusal);
            });
        }
    }

    /** One shard's layout to record: {@code index} of {@code shards} ({@code 1, 0}: retired, ids as on an unsharded queue). */
    private record Step(QueueKeys shard, int shards, int index) {
    }

    private Optional<ShardLayoutRefusal> run(Step step, String mode) {
        return Replies.shardLayout(scripts.run(Script.SHARD_LAYOUT, step.shard(), null,
                List.of(step.shard().prefix(), Integer.toString(step.shards()), Integer.toString(step.index()), mode)));
    }

    private static ShardCountRefusedException refused(ShardLayout layout, ShardLayoutRefusal refusal) {
        String queue = layout.queue();
        return new ShardCountRefusedException("echomq.queues." + queue + ".shards: queue '" + queue + "' cannot have "
                + layout.shards() + " shards now: its shard " + refusal.recordedShard() + " holds " + refusal.jobs() + " jobs minted for "
                + refusal.recordedShards() + " shard" + (refusal.recordedShards() == 1 ? "" : "s")
                + " (docs/SHARDING.md, \"Changing N\"); the shard count can change only while the queue holds no job in "
                + "any state: drain it, remove or let retention clear its finished jobs, then start again with the new count, "
                + "or set it back to " + refusal.recordedShards());
    }
}
