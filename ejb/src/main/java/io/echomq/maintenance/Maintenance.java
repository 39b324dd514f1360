package io.echomq.maintenance;

import io.echomq.effect.EffectStore;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Retention;
import io.echomq.queue.shard.QueueShards;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The queues' housekeeping: the {@link Reaper}, the {@link RetentionTrimmer}, the
 * {@link Reconciler}, the {@link EffectRetention}, the {@link EffectPartitionRetirement} and the {@link ScheduleTicker}, each on its own
 * interval at a fixed delay, over the queues this engine keeps house for: one engine at a time
 * per queue, the holder of the queue's maintenance lease ({@link QueueStewardship}). Each run of a duty over a queue is bounded and fails alone: a queue
 * whose run failed (or PostgreSQL being down for the reconciler) never keeps the other queues or
 * the other duties from running. A scheduled run is waited for {@link Settings#timeout} at most
 * ({@link TimeLimitedRuns}): a duty stuck on the database is given up, logged by name and retried
 * next run, and never holds the schedule. A duty logs only what it changed, summed over a minute at most
 * ({@link ChangeTally}). Like every lifecycle here, start and stop tolerate stop-before-start and
 * a double stop.
 */
public final class Maintenance {

    private static final Logger LOG = Logger.getLogger(Maintenance.class.getName());

    /**
     * @param interval       delay between reaper, reconciler, effect retention and schedule ticker runs; also bounds how
     *                       long an expired lease waits, and how late a schedule's slot fires
     * @param reapBatch      jobs reaped per script call (a run repeats calls up to {@link Reaper#MAX_CALLS_PER_RUN} times)
     * @param retention      bounds on finished jobs
     * @param trimEvery      delay between runs of the retention trimmer (finished jobs in Valkey)
     * @param effectRewalkEvery how often the effect retention's walk starts over from the oldest effect row, to look
     *                       again at the rows it kept while their jobs were unfinished
     * @param reconcileBatch jobs checked per scanned set, queue and run
     * @param effectRetention how old an effect row of a finished job gets before it is deleted (a little older at most:
     *                        {@link #effectRowLifetime}); never shorter than the idempotency window
     * @param timeout        the longest a scheduled run of a duty over a queue is waited for: its wait for a database
     *                       connection, and each of its statements (lock waits included)
     */
    public record Settings(Duration interval, int reapBatch, Retention retention, Duration trimEvery, Duration effectRewalkEvery,
            int reconcileBatch, Duration effectRetention, Duration timeout) {

        public static final Duration DEFAULT_EFFECT_RETENTION = Duration.ofDays(7);
        public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
        public static final Settings DEFAULT = new Settings(Duration.ofSeconds(1), 500, Retention.DEFAULT, Duration.ofSeconds(30),
                Duration.ofSeconds(30), 200, DEFAULT_EFFECT_RETENTION);

        public Settings {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("maintenance timeout must be positive, was " + timeout);
            }
        }

        /** Settings with the {@link #DEFAULT_TIMEOUT}. */
        public Settings(Duration interval, int reapBatch, Retention retention, Duration trimEvery, Duration effectRewalkEvery,
                int reconcileBatch, Duration effectRetention) {
            this(interval, reapBatch, retention, trimEvery, effectRewalkEvery, reconcileBatch, effectRetention, DEFAULT_TIMEOUT);
        }

        public Settings withInterval(Duration newInterval) {
            return new Settings(newInterval, reapBatch, retention, trimEvery, effectRewalkEvery, reconcileBatch, effectRetention, timeout);
        }

        public Settings withEffectRetention(Duration age) {
            return new Settings(interval, reapBatch, retention, trimEvery, effectRewalkEvery, reconcileBatch, age, timeout);
        }

        public Settings withTimeout(Duration newTimeout) {
            return new Settings(interval, reapBatch, retention, trimEvery, effectRewalkEvery, reconcileBatch, effectRetention, newTimeout);
        }

        /**
         * The longest an effect row of a finished job lives: its retention age, and until the effect retention reaches it,
         * in the DEFAULT partition, or until its time partition is retired (a partition width later, and a run).
         */
        public Duration effectRowLifetime() {
            Duration inDefault = EffectRetention.longestOverAge(interval, effectRewalkEvery);
            Duration inPartition = EffectPartitionRetirement.widthFor(effectRetention).plus(interval);
            return effectRetention.plus(max(inDefault, inPartition));
        }
    }

    /**
     * Effect rows read and, where their jobs are finished, deleted per batch: small, so that each
     * statement is short beside the workers' and the batch held in memory is small.
     */
    private static final int EFFECT_RETENTION_BATCH = 1_000;
    /** Notices applied, cancel lists carried and waiting parents looked at per flow duty run and queue. */
    private static final int FLOW_BATCH = 500;

    private final List<String> queues;
    private final QueueStewardship stewardship;
    private final List<MaintenanceDuty> duties;
    private final MaintenanceListener listener;
    private final Duration timeout;
    private final Map<MaintenanceDuty, ChangeTally> tallies = new IdentityHashMap<>();
    /** Guarded by this. */
    private final List<ScheduledFuture<?>> schedules = new ArrayList<>();
    private boolean stopped;

    /**
     * @param effects the store the duties read and prune; its statements get the {@link Settings#timeout} as their
     *                query timeout here
     * @param holder  names this engine in the queues' maintenance leases: unique per engine
     */
    public Maintenance(QueueClient queue, EffectStore effects, List<String> queues, Settings settings, String holder,
            MaintenanceListener listener) {
        this(QueueShards.none(queue), effects, queues, settings, holder, listener);
    }

    /** How often a sharded queue's key homes are swept, at least (the maintenance interval when longer). */
    static final Duration KEY_HOME_SWEEP_EVERY = Duration.ofSeconds(10);

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * Maintenance over queues laid out by {@code shards}: on a sharded queue, the reaper, the
     * retention trimmer and the reconciler run on every shard, and the effect retention asks each
     * job's shard, all under the queue's one maintenance lease, held on shard 0 (docs/SHARDING.md, 7).
     * The flow relay and repair walk every shard's notices, cancel lists and waiting parents (3.4),
     * and the schedule ticker fires every shard's schedules, each on its lane's shard (3.3).
     * A sharded queue's shards left behind on its settings by a crash are brought to shard 0's
     * and the key reservations a stopped submitter left are completed or forgotten
     * ({@link ShardedQueueDuty}).
     */
    public Maintenance(QueueShards shards, EffectStore effects, List<String> queues, Settings settings, String holder,
            MaintenanceListener listener) {
        QueueClient queue = shards.unsharded();
        this.queues = List.copyOf(queues);
        // Shard 0's keys are the queue's own: the unsharded client's lease is the queue's one lease.
        this.stewardship = new QueueStewardship(queue.admin(), holder, settings.interval());
        this.listener = listener;
        this.timeout = settings.timeout();
        EffectStore bounded = effects.withQueryTimeout(settings.timeout());
        GoneForGood goneForGood = new GoneForGood(shards::statesOf, bounded);
        List<MaintenanceDuty> all = new ArrayList<>(List.of(
                OnEveryShard.of(shards, queues, shard -> new Reaper(shard.admin(), settings.interval(), settings.reapBatch())),
                OnEveryShard.of(shards, queues, shard -> new RetentionTrimmer(shard.admin(), settings.trimEvery(), settings.retention())),
                OnEveryShard.of(shards, queues,
                        shard -> new Reconciler(shard.reads(), shard.admin(), bounded, settings.interval(), settings.reconcileBatch())),
                new EffectRetention(goneForGood, bounded, settings.interval(), settings.effectRewalkEvery(), settings.effectRetention(),
                        EFFECT_RETENTION_BATCH),
                new EffectPartitionRetirement(bounded.partitions(), goneForGood, queues.isEmpty() ? "" : queues.get(0),
                        settings.interval(), settings.effectRetention(), EFFECT_RETENTION_BATCH),
                new ScheduleTicker(shards::schedules, settings.interval()),
                new FlowRelay(shards.flows(), settings.interval(), FLOW_BATCH),
                new FlowRepair(shards.flows(), settings.interval(), FlowRepair.GRACE, FLOW_BATCH, java.time.Clock.systemUTC())));
        all.addAll(ShardedQueueDuty.settingsSync(shards, queues, settings.interval()));
        // A reservation is swept only once older than KeyHomeSweeper.GRACE: a sweep every few seconds is plenty.
        all.addAll(ShardedQueueDuty.keyHomeSweep(shards, queues, max(settings.interval(), KEY_HOME_SWEEP_EVERY)));
        this.duties = List.copyOf(all);
        duties.forEach(duty -> tallies.put(duty, new ChangeTally()));
        tallies.put(stewardship, new ChangeTally());
    }

    /**
     * Schedules the queues' maintenance leases at once and every duty on {@code timers}, the first
     * run of each one interval from now, over the queues whose lease this engine holds then. Each
     * run over a queue goes on a thread of {@code runs} and is waited for the
     * {@link Settings#timeout} at most: a duty stuck on the database delays neither the other
     * duties nor, on other threads, lease upkeep.
     */
    public synchronized void start(ScheduledExecutorService timers, ExecutorService runs) {
        if (!schedules.isEmpty() || stopped) {
            return;
        }
        TimeLimitedRuns limited = new TimeLimitedRuns(runs, timeout);
        long leaseEvery = stewardship.interval().toMillis();
        schedules.add(timers.scheduleWithFixedDelay(
                () -> runLogged(stewardship, (d, queue) -> limited.run(d, queue, () -> runAlone(d, queue)), queue -> true),
                0, leaseEvery, TimeUnit.MILLISECONDS));
        for (MaintenanceDuty duty : duties) {
            long every = duty.interval().toMillis();
            schedules.add(timers.scheduleWithFixedDelay(
                    () -> runLogged(duty, (d, queue) -> limited.run(d, queue, () -> runAlone(d, queue)), stewardship::keepsHouseFor),
                    every, every, TimeUnit.MILLISECONDS));
        }
    }

    /**
     * Stops future runs and hands the queues' maintenance leases back, so another engine takes
     * over at its next run; a run in progress finishes.
     */
    public synchronized void stop() {
        boolean wasRunning = !schedules.isEmpty() && !stopped;
        stopped = true;
        schedules.forEach(s -> s.cancel(false));
        if (wasRunning) {
            stewardship.handBack(queues);
        }
    }

    /** How long a queue's maintenance lease lasts unrenewed: the longest the duties pause over a queue when its holder dies. */
    public Duration leaseLength() {
        return stewardship.leaseLength();
    }

    /**
     * Every duty over every queue, now, on the calling thread (tests, and operators' tools), each
     * waited for as long as it takes, whichever engine holds the queues' leases. Failures are
     * reported and skipped like on the schedule.
     */
    public Pass runOnce() {
        Pass total = Pass.NOTHING;
        for (MaintenanceDuty duty : duties) {
            total = total.plus(run(duty, Maintenance::runAlone, queue -> true));
        }
        return total;
    }

    /** How a run of one duty over one queue is carried out: here, or on a thread of its own under the timeout. */
    private interface DutyRun {
        Pass run(MaintenanceDuty duty, String queue);
    }

    private static Pass runAlone(MaintenanceDuty duty, String queue) {
        // One duty's runs never overlap: a slow run delays its next, never doubles it.
        synchronized (duty) {
            return duty.runOnce(queue);
        }
    }

    private Pass run(MaintenanceDuty duty, DutyRun how, Predicate<String> keptHere) {
        Pass total = Pass.NOTHING;
        for (String queue : queues) {
            if (!keptHere.test(queue)) {
                continue;
            }
            long start = System.nanoTime();
            try {
                Pass pass = how.run(duty, queue);
                total = total.plus(pass);
                report(() -> listener.ran(duty.name(), queue, pass, Duration.ofNanos(System.nanoTime() - start)));
            } catch (DutyTimedOutException e) {
                LOG.log(e.skipped() ? Level.FINE : Level.WARNING, e.getMessage());
                report(() -> listener.failed(duty.name(), queue, e));
            } catch (RuntimeException e) {
                if (Thread.currentThread().isInterrupted()) {
                    // The engine is stopping its threads: not a failure of the duty.
                    LOG.log(Level.FINE, "maintenance: the " + duty.name() + " stopped on queue '" + queue + "'", e);
                    return total;
                }
                LOG.log(Level.WARNING, "maintenance: the " + duty.name() + " failed on queue '" + queue + "'; its next run retries: " + e, e);
                report(() -> listener.failed(duty.name(), queue, e));
            }
        }
        return total;
    }

    private void runLogged(MaintenanceDuty duty, DutyRun how, Predicate<String> keptHere) {
        try {
            Pass pass = tallies.get(duty).add(run(duty, how, keptHere), System.nanoTime());
            if (pass != null) {
                LOG.log(Level.INFO, "maintenance: the {0} made {1} changes since its last report ({2} expired leases back to "
                        + "pending, {3} dead-lettered, {4} cancelled as requested, {5} finished jobs trimmed, {6} completed by the reconciler, "
                        + "{7} old effect rows deleted, {8} jobs of recurring schedules made, {9} flow edges carried)",
                        new Object[] {duty.name(), pass.changes(), pass.reapedToPending(), pass.reapedToDead(), pass.reapedToCancelled(),
                                pass.trimmed(), pass.reconciled(), pass.effectRowsDeleted(), pass.scheduledJobs(), pass.flowEdges()});
            }
        } catch (RuntimeException | Error e) {
            // A scheduled task that throws is never run again: nothing may escape.
            LOG.log(Level.SEVERE, "maintenance: the " + duty.name() + " failed unexpectedly; its next run retries", e);
            if (e instanceof VirtualMachineError fatal) {
                throw fatal;
            }
        }
    }

    private static void report(Runnable event) {
        try {
            event.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "maintenance listener failed", e);
        }
    }
}
