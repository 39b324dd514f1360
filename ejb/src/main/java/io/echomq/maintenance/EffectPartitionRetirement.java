package io.echomq.maintenance;

import io.echomq.effect.EffectPartitions;
import io.echomq.effect.EffectRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Keeps the effect table's time partitions: makes them ahead of need, and retires a partition whole
 * once nothing in it can still be asked for, so effect rows go without a DELETE or a vacuum.
 *
 * <p>Invariant (docs/ARCHITECTURE.md, "Effect retention"): a partition is retired only when its
 * whole range of job creation times ended at least the retention age ago, after a census has read
 * every row in it and asked {@link GoneForGood} about each; in the one transaction that drops it,
 * the rows the census found still needed, and every row applied less than the retention age
 * before the census began (which includes any row committed after the census read past its
 * place), are put back first, into the DEFAULT partition, where {@link EffectRetention} deletes
 * them one by one once they may go. A job created in a retired range whose row is written later
 * (delayed for a month) finds no time partition and lands in the DEFAULT partition too.
 *
 * <p>The partitions are shared by every queue, so this runs over one queue only, the first this
 * engine keeps house for ({@code anchorQueue}): one engine at a time does it, the holder of that
 * queue's maintenance lease. Two engines configured with different first queues both do it, and
 * take turns on the table ({@link EffectPartitions}).
 */
final class EffectPartitionRetirement implements MaintenanceDuty {

    /** How many partition widths ahead of now (on the database's clock) the partitions reach. */
    static final int PARTITIONS_AHEAD = 3;
    /** The narrowest partition: a shorter retention age still gets partitions this wide. */
    static final Duration MIN_WIDTH = Duration.ofSeconds(1);

    private static final Logger LOG = Logger.getLogger(EffectPartitionRetirement.class.getName());

    private final EffectPartitions partitions;
    private final GoneForGood goneForGood;
    private final String anchorQueue;
    private final Duration interval;
    private final Duration age;
    private final Duration width;
    private final int batch;
    /** The census in progress, or null. Used by one maintenance thread at a time. */
    private Census census;
    /**
     * No partition is made or retired before this (System.nanoTime): after one gave up waiting for
     * the table's lock (a long effect transaction holds it), the next try waits
     * {@link #PAUSE_AFTER_LOCK_WAIT} intervals, so effect transactions are not held up every run.
     */
    private long changesPausedUntil = System.nanoTime();
    static final int PAUSE_AFTER_LOCK_WAIT = 10;

    /**
     * Where the census of one partition is: the rows read up to (primary key order), the rows found
     * still needed, how many rows were read, and when it began on the database's clock.
     */
    private record Census(EffectPartitions.Range partition, EffectRecord readUpTo, List<EffectRecord> keep, long read, Instant began) {

        Census past(List<EffectRecord> rows, List<EffectRecord> needed) {
            List<EffectRecord> kept = new ArrayList<>(keep);
            kept.addAll(needed);
            return new Census(partition, rows.isEmpty() ? readUpTo : rows.get(rows.size() - 1), kept, read + rows.size(), began);
        }
    }

    EffectPartitionRetirement(EffectPartitions partitions, GoneForGood goneForGood, String anchorQueue, Duration interval, Duration age,
            int batch) {
        this.partitions = partitions;
        this.goneForGood = goneForGood;
        this.anchorQueue = anchorQueue;
        this.interval = interval;
        this.age = age;
        this.width = widthFor(age);
        this.batch = batch;
    }

    /**
     * A partition spans an eighth of the retention age: a row outlives its age by one width at most
     * before its partition may go, and about nine partitions exist at a time.
     */
    static Duration widthFor(Duration age) {
        Duration eighth = age.dividedBy(8);
        return eighth.compareTo(MIN_WIDTH) < 0 ? MIN_WIDTH : eighth;
    }

    @Override
    public String name() {
        return "effect-partitions";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    /**
     * Makes the partitions ahead, then goes on with the census of the oldest partition past the age
     * and retires it, and the next, for half an interval at most; the census in progress then
     * carries on at the next run.
     */
    @Override
    public Pass runOnce(String queueName) {
        if (!queueName.equals(anchorQueue)) {
            return Pass.NOTHING;
        }
        long started = System.nanoTime();
        if (started - changesPausedUntil < 0) {
            return Pass.NOTHING;
        }
        long deadline = started + interval.toNanos() / 2;
        long nowMs = partitions.nowMs();
        // The first partition starts a width from now: Valkey's clock (creation times) may run a
        // little ahead of PostgreSQL's, and the DEFAULT partition may hold rows up to now.
        long aheadMs = nowMs + PARTITIONS_AHEAD * width.toMillis();
        List<EffectPartitions.Range> ranges = new ArrayList<>(partitions.ranges());
        // Most runs find the partitions ahead made already, and make none (nor take their lock).
        if (ranges.stream().mapToLong(EffectPartitions.Range::toMs).max().orElse(Long.MIN_VALUE) < aheadMs) {
            Optional<List<EffectPartitions.Range>> made = pausedOnFailure(() -> partitions.makeAhead(nowMs + width.toMillis(), aheadMs, width));
            if (made.isEmpty()) {
                return Pass.NOTHING;
            }
            ranges.addAll(made.get());
        }
        if (census != null && !ranges.contains(census.partition())) {
            // Another engine retired it.
            census = null;
        }
        long dropped = 0;
        for (EffectPartitions.Range range : ranges) {
            if (System.nanoTime() >= deadline || range.toMs() > nowMs - age.toMillis()) {
                break;
            }
            if (census == null) {
                census = new Census(range, null, List.of(), 0, Instant.ofEpochMilli(nowMs));
            } else if (!census.partition().equals(range)) {
                continue;
            }
            if (!readOn(deadline)) {
                break;
            }
            Optional<Long> retired = pausedOnFailure(this::retire);
            if (retired.isEmpty()) {
                break;
            }
            dropped += retired.get();
        }
        return Pass.effectRowsDeleted((int) Math.min(Integer.MAX_VALUE, dropped));
    }

    /**
     * Runs a change of the partition set. When it gave up waiting for the table's lock, pauses the
     * changes and answers empty: an expected turn of events under long effect transactions, told in
     * one line, not as a failure. Any other failure pauses them too and is rethrown.
     */
    private <T> Optional<T> pausedOnFailure(Supplier<T> change) {
        try {
            return Optional.of(change.get());
        } catch (EffectPartitions.BusyException e) {
            changesPausedUntil = System.nanoTime() + interval.toNanos() * PAUSE_AFTER_LOCK_WAIT;
            LOG.info(() -> "maintenance: effect-partitions " + e.getMessage() + "; tries again in " + PAUSE_AFTER_LOCK_WAIT + " intervals");
            return Optional.empty();
        } catch (RuntimeException e) {
            changesPausedUntil = System.nanoTime() + interval.toNanos() * PAUSE_AFTER_LOCK_WAIT;
            throw e;
        }
    }

    /** Reads the census's partition on until {@code deadline}; true when every row is read. */
    private boolean readOn(long deadline) {
        while (System.nanoTime() < deadline) {
            List<EffectRecord> rows = partitions.rowsOf(census.partition(), census.readUpTo(), batch);
            census = census.past(rows, stillNeeded(rows));
            if (rows.size() < batch) {
                return true;
            }
        }
        return false;
    }

    /** Retires the partition whose census is done; returns how many rows went with it. */
    private long retire() {
        Census done = census;
        Integer keptBack = partitions.retire(done.partition(), done.keep(), done.began().minus(age)).orElse(null);
        census = null;
        return keptBack == null ? 0 : Math.max(0, done.read() - keptBack);
    }

    /** The rows {@link GoneForGood} does not let go, asked per queue. */
    private List<EffectRecord> stillNeeded(List<EffectRecord> rows) {
        Map<String, List<EffectRecord>> byQueue = rows.stream()
                .collect(Collectors.groupingBy(EffectRecord::queue, LinkedHashMap::new, Collectors.toList()));
        List<EffectRecord> needed = new ArrayList<>();
        byQueue.forEach((queue, ofQueue) -> {
            Set<EffectRecord> going = Set.copyOf(goneForGood.of(queue, ofQueue));
            ofQueue.stream().filter(r -> !going.contains(r)).forEach(needed::add);
        });
        return needed;
    }
}
