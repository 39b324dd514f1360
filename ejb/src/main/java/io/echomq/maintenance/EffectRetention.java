package io.echomq.maintenance;

import io.echomq.effect.EffectRecord;
import io.echomq.effect.EffectStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deletes the DEFAULT partition's effect rows older than the retention age, in bounded batches, so
 * that partition stays bounded at any sustained rate (invariant 9). The time partitions, which
 * hold nearly every row, are retired whole ({@link EffectPartitionRetirement}); the DEFAULT
 * partition holds the rows no time partition takes (jobs created before the first partition was
 * made, or while none was, and the rows a retirement kept), and only there are rows deleted one
 * by one, with the vacuum that costs.
 *
 * <p>Invariant: a row goes only when {@link GoneForGood} lets it. The age is never shorter than the
 * idempotency window (checked where it is configured), so a row still names its idempotency key
 * for as long as the key names one effect.
 *
 * <p>It runs often, in small batches, so the work is spread evenly beside the workers': deleting a
 * long period's rows in one burst (at 8,000 jobs a second, 280,000 rows in 4 to 5 s every 35 s)
 * tripled the workers' worst latency during those seconds.
 */
final class EffectRetention implements MaintenanceDuty {

    private final EffectStore effects;
    private final GoneForGood goneForGood;
    private final Duration interval;
    private final Duration rewalkEvery;
    private final Duration age;
    private final int batch;
    /** Per queue, the walk over the rows past the age. Used by one maintenance thread at a time. */
    private final Map<String, Walk> walks = new ConcurrentHashMap<>();

    /**
     * Where a walk is: the next batch starts after the last row it read ({@code null}: at the
     * oldest row). Starting there, rather than at the oldest row again, matters: the index still
     * holds the rows deleted since the last vacuum, and a batch that started at the oldest row
     * read past all of them first.
     */
    private record Walk(EffectRecord readUpTo, long startedNanos) {

        Walk past(List<EffectRecord> read) {
            return read.isEmpty() ? this : new Walk(read.get(read.size() - 1), startedNanos);
        }
    }

    /**
     * @param interval    delay between runs; a run works for half of it at most
     * @param rewalkEvery how often the walk starts over from the oldest row
     */
    EffectRetention(GoneForGood goneForGood, EffectStore effects, Duration interval, Duration rewalkEvery, Duration age, int batch) {
        this.effects = effects;
        this.goneForGood = goneForGood;
        this.interval = interval;
        this.rewalkEvery = rewalkEvery;
        this.age = age;
        this.batch = batch;
    }

    /**
     * The longest an effect row of a finished job outlives its age: until a walk reaches it. The
     * walk in progress reaches a row within a run or two of it passing the age; a row it passed
     * before that (kept while its job was held, or committed only after the walk went by its
     * time, by a transaction that ran for longer than the age) waits for the next walk.
     */
    static Duration longestOverAge(Duration interval, Duration rewalkEvery) {
        return rewalkEvery.plus(interval);
    }

    @Override
    public String name() {
        return "effect-retention";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    /**
     * Batches until the rows past the age are all seen, so deletion keeps pace with any rate of
     * new rows. A run stops at half its interval at the latest, leaving the rest to the next one,
     * so it never holds the database busy without a pause nor a timer thread for long. The walk
     * goes on across runs, and starts over every {@code rewalkEvery} to look again at the rows it
     * kept: their jobs may have finished since.
     */
    @Override
    public Pass runOnce(String queueName) {
        long now = System.nanoTime();
        Walk walk = walks.get(queueName);
        if (walk == null || now - walk.startedNanos() >= rewalkEvery.toNanos()) {
            walk = new Walk(null, now);
        }
        int deleted = 0;
        long deadline = now + interval.toNanos() / 2;
        while (System.nanoTime() < deadline) {
            List<EffectRecord> old = effects.appliedBefore(queueName, age, walk.readUpTo(), batch);
            deleted += effects.forget(queueName, goneForGood.of(queueName, old));
            walk = walk.past(old);
            if (old.size() < batch) {
                break;
            }
        }
        walks.put(queueName, walk);
        return Pass.effectRowsDeleted(deleted);
    }
}
