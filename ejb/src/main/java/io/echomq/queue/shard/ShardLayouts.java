package io.echomq.queue.shard;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.internal.ValkeyCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
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
            refuseOrphanedSchedules(old, layout);
            refuseKeyHomesInUse(old, layout);
            for (int shard = 1; shard < old.shards(); shard++) {
                steps.add(new Step(old.keys(shard), 1, 0, false));
            }
        }
        for (int shard = 0; shard < layout.shards(); shard++) {
            steps.add(new Step(layout.keys(shard), layout.shards(), shard, shard == 0));
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

    /**
     * Refuses a change of the shard count that would leave a schedule where the new layout cannot
     * reach it (docs/SHARDING.md, 3.3 and 10): a schedule on a shard other than 0 (of either
     * layout: the old one's are retired, the new one's are found through a directory the change
     * rebuilds), a directory entry naming such a shard (a put or remove stopped half way), or a
     * schedule on shard 0 of a lane the new layout puts on another shard (its jobs would be made
     * apart from the lane's), or a move between shards left unfinished. Shard 0's other schedules stay where they are, and recording the new
     * layout makes the directory name shard 0 for each of them.
     *
     * @throws ShardCountRefusedException naming {@code echomq.queues.<q>.shards}
     */
    private void refuseOrphanedSchedules(ShardLayout old, ShardLayout layout) {
        for (ShardLayout each : List.of(old, layout)) {
            for (int shard = 1; shard < each.shards(); shard++) {
                QueueKeys keys = each.keys(shard);
                List<String> names = ValkeyCommands.read(() -> redis.zrange(keys.schedules(), 0, -1));
                if (!names.isEmpty()) {
                    throw schedulesRefused(layout, "its shard " + shard + " of " + each.shards() + " holds " + names.size()
                            + " schedules (" + String.join(", ", names) + ")");
                }
            }
        }
        QueueKeys home = layout.keys(0);
        // A move a stop left unfinished names its shards by the old count (the ticker finishes it).
        List<String> moving = ValkeyCommands.read(() -> new ArrayList<>(redis.hkeys(home.scheduleMoves())));
        if (!moving.isEmpty()) {
            throw schedulesRefused(layout, "schedule '" + new TreeSet<>(moving).first() + "' is moving to another shard (an engine's "
                    + "maintenance finishes the move within a tick)");
        }
        Map<String, String> homes = ValkeyCommands.read(() -> redis.hgetAll(home.scheduleHomes()));
        for (Map.Entry<String, String> entry : new TreeMap<>(homes).entrySet()) {
            if (!entry.getValue().equals("0")) {
                throw schedulesRefused(layout, "schedule '" + entry.getKey() + "' has its home on shard " + entry.getValue());
            }
        }
        for (String name : ValkeyCommands.read(() -> redis.zrange(home.schedules(), 0, -1))) {
            String lane = ValkeyCommands.read(() -> redis.hget(home.schedule(name), "lane"));
            if (lane != null && ShardLayout.pinsLane(lane) && layout.shardOfLane(lane) != 0) {
                throw schedulesRefused(layout, "schedule '" + name + "' on shard 0 makes jobs in lane '" + lane + "', which "
                        + layout.shards() + " shards put on shard " + layout.shardOfLane(lane));
            }
        }
    }

    /**
     * Refuses a change of the shard count while a shard of either layout records a key home
     * (docs/SHARDING.md, 3.1 and 10): an entry names its key's home by the shard index of the old
     * layout, and its key's owner by the old count, so under another count it would send a
     * submission of that key to a shard that never held it. The key-homes duty deletes an entry
     * once its job is gone and its window closed, so a drained queue loses them within a sweep.
     *
     * @throws ShardCountRefusedException naming {@code echomq.queues.<q>.shards}
     */
    private void refuseKeyHomesInUse(ShardLayout old, ShardLayout layout) {
        for (ShardLayout each : List.of(old, layout)) {
            for (int shard = 0; shard < each.shards(); shard++) {
                QueueKeys keys = each.keys(shard);
                long homes = ValkeyCommands.read(() -> redis.hlen(keys.homes("idem")) + redis.hlen(keys.homes("dedupe")));
                if (homes > 0) {
                    String queue = layout.queue();
                    throw new ShardCountRefusedException("echomq.queues." + queue + ".shards: queue '" + queue + "' cannot have "
                            + layout.shards() + " shards now: its shard " + shard + " of " + each.shards() + " records " + homes
                            + " key homes (idempotency or dedupe keys whose job or window is on another shard; docs/SHARDING.md, "
                            + "\"Changing N\"); the key-homes duty deletes each once its job is gone and its window closed: "
                            + "run an engine with " + old.shards() + " shard" + (old.shards() == 1 ? "" : "s") + " until the queue is drained and a sweep has passed "
                            + "(about " + KeyHomeSweeper.GRACE.toSeconds() + " s), then start again with the new count");
                }
            }
        }
    }

    private static ShardCountRefusedException schedulesRefused(ShardLayout layout, String why) {
        String queue = layout.queue();
        return new ShardCountRefusedException("echomq.queues." + queue + ".shards: queue '" + queue + "' cannot have "
                + layout.shards() + " shards now: " + why + " (docs/SHARDING.md, \"Changing N\"); a schedule stays on the shard "
                + "it was put on, which another count would leave out of reach: remove these schedules (DELETE "
                + "/api/schedules/" + queue + "/<name>), start again with the new count, then put them again (configured "
                + "schedules are put again at start)");
    }

    /**
     * One shard's layout to record: {@code index} of {@code shards} ({@code 1, 0}: retired, ids as
     * on an unsharded queue); {@code keepsDirectory} on the queue's shard 0, whose schedules'
     * directory a change rebuilds from the schedules there.
     */
    private record Step(QueueKeys shard, int shards, int index, boolean keepsDirectory) {
    }

    private Optional<ShardLayoutRefusal> run(Step step, String mode) {
        return Replies.shardLayout(scripts.run(Script.SHARD_LAYOUT, step.shard(), null,
                List.of(step.shard().prefix(), Integer.toString(step.shards()), Integer.toString(step.index()), mode,
                step.keepsDirectory() ? "1" : "")));
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
