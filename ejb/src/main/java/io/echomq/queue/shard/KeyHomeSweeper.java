package io.echomq.queue.shard;

import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The maintenance duty of a sharded queue's key homes (docs/SHARDING.md, 3.1), run by the holder of
 * the queue's maintenance lease: it walks every owner's home entries and repairs what a submitter
 * that stopped left behind, and keeps the entries and fences bounded (invariant 9):
 * <ul>
 * <li>a reservation older than the grace (on its owner's clock) whose home holds the key's job or
 *     window is confirmed; one whose home holds nothing is fenced there, then deleted, so a late
 *     create by the stopped submitter is refused (K1);
 * <li>a confirmed entry whose home holds nothing any more (the job trimmed, the window over) is
 *     fenced and deleted: the key is free again, as on one shard;
 * <li>then each shard's fences of the owner's keys are replaced by a floor of the owner's tokens
 *     below the oldest token an entry still names, so a fence is kept only while needed (a key
 *     whose job lives long holds the floor back, and fences wait for it).
 * </ul>
 * Every step compares before it changes, so two sweepers, or a sweeper and a submitter, are safe together.
 */
public final class KeyHomeSweeper {

    /** How long a reservation may wait for its job before the sweeper repairs it (its submitter is taken for stopped). */
    public static final Duration GRACE = Duration.ofSeconds(60);

    private static final List<String> KINDS = List.of("idem", "dedupe");
    private static final int BATCH = 100;

    private final ShardLayout layout;
    private final KeyHomeSteps steps;
    private final UnifiedJedis redis;

    KeyHomeSweeper(ShardLayout layout, ScriptRunner scripts, UnifiedJedis redis) {
        this.layout = layout;
        this.steps = new KeyHomeSteps(layout, scripts);
        this.redis = redis;
    }

    /**
     * What one sweep did.
     *
     * @param confirmed      reservations whose job or window was found on their home
     * @param forgotten      entries deleted: their home was fenced and held nothing for the key
     * @param fencesDeleted  fences replaced by their owner's floor
     */
    public record Swept(int confirmed, int forgotten, int fencesDeleted) {
    }

    /** Sweeps every owner shard with the standard grace. */
    public Swept sweep() {
        return sweep(GRACE);
    }

    /** Sweeps every owner shard, repairing reservations older than {@code grace}. */
    public Swept sweep(Duration grace) {
        int confirmed = 0;
        int forgotten = 0;
        long[] lowestOut = new long[layout.shards()];
        for (int owner = 0; owner < layout.shards(); owner++) {
            String counted = redis.get(layout.keys(owner).homeSeq());
            lowestOut[owner] = counted == null ? 0 : Long.parseLong(counted);
            for (String kind : KINDS) {
                for (Map.Entry<String, String> entry : entries(layout.keys(owner).homes(kind))) {
                    String[] parts = entry.getValue().split(":");
                    int home = Integer.parseInt(parts[0]);
                    String token = parts[1];
                    String outcome = repair(owner, kind, entry.getKey(), home, token, parts[2].equals("reserved"), grace);
                    confirmed += outcome.equals("confirmed") ? 1 : 0;
                    forgotten += outcome.equals("forgotten") ? 1 : 0;
                    if (!outcome.equals("forgotten") && !outcome.equals("changed")) {
                        // A token its entry still names may still be used to make (or be answered) its job.
                        lowestOut[owner] = Math.min(lowestOut[owner], Long.parseLong(token) - 1);
                    }
                }
            }
        }
        int fencesDeleted = 0;
        for (int shard = 0; shard < layout.shards(); shard++) {
            fencesDeleted += trimFences(shard, lowestOut);
        }
        return new Swept(confirmed, forgotten, fencesDeleted);
    }

    /**
     * One entry's repair: 'confirmed', 'forgotten', 'young' (a reservation still in its grace),
     * 'kept' (its home holds the key), or 'changed' (a submitter replaced or settled it meanwhile:
     * a replacement's token is newer than the sweep).
     */
    private String repair(int owner, String kind, String key, int home, String token, boolean reserved, Duration grace) {
        String expected = home + ":" + token;
        if (reserved) {
            String stale = steps.run(Script.KEY_HOME_CONFIRM, owner, kind,
                    List.of(key, expected, "stale", Long.toString(grace.toMillis()))).get(0);
            if (!stale.equals("DONE")) {
                return stale.equals("YOUNG") ? "young" : "changed";
            }
        }
        // A dedupe window holds its key whatever the mode of the submissions that meet it.
        if (steps.releaseAndForget(owner, home, kind, key, token, "throttle")) {
            return "forgotten";
        }
        if (reserved) {
            steps.run(Script.KEY_HOME_CONFIRM, owner, kind, List.of(key, expected, "confirm", ""));
            return "confirmed";
        }
        return "kept";
    }

    /**
     * Raises {@code shard}'s floor of each owner's tokens to {@code floors[owner]} and deletes the
     * fences of that owner's keys it covers; the shard's fence hashes are scanned once for every owner.
     */
    private int trimFences(int shard, long[] floors) {
        List<List<String>> pairsOfOwner = new ArrayList<>();
        for (int owner = 0; owner < layout.shards(); owner++) {
            pairsOfOwner.add(new ArrayList<>());
        }
        for (String kind : KINDS) {
            for (Map.Entry<String, String> fence : entries(layout.keys(shard).fence(kind))) {
                int owner = layout.ownerOfKey(fence.getKey());
                if (Long.parseLong(fence.getValue()) <= floors[owner]) {
                    pairsOfOwner.get(owner).add(kind);
                    pairsOfOwner.get(owner).add(fence.getKey());
                }
            }
        }
        int deleted = 0;
        for (int owner = 0; owner < layout.shards(); owner++) {
            deleted += raiseFloor(shard, owner, floors[owner], pairsOfOwner.get(owner));
        }
        return deleted;
    }

    /** Runs key-home-floor on {@code shard} for {@code owner}'s fences {@code pairs} (kind, key, …), in batches. */
    private int raiseFloor(int shard, int owner, long floor, List<String> pairs) {
        int deleted = 0;
        for (int from = 0; from < pairs.size(); from += 2 * BATCH) {
            List<String> args = new ArrayList<>(List.of(layout.keys(shard).prefix(), Integer.toString(owner), Long.toString(floor)));
            args.addAll(pairs.subList(from, Math.min(pairs.size(), from + 2 * BATCH)));
            deleted += Integer.parseInt(steps.run(Script.KEY_HOME_FLOOR, shard, "", args).get(1));
        }
        return deleted;
    }

    private List<Map.Entry<String, String>> entries(String hash) {
        List<Map.Entry<String, String>> all = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<Map.Entry<String, String>> page = redis.hscan(hash, cursor, new ScanParams().count(BATCH));
            all.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return all;
    }
}
