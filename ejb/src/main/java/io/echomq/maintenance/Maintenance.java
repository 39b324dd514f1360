package io.echomq.maintenance;

import io.echomq.effect.EffectStore;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Retention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The queues' housekeeping: the {@link Reaper}, the {@link RetentionTrimmer}, the
 * {@link Reconciler}, the {@link EffectRetention} and the {@link ScheduleTicker}, each on its own
 * interval at a fixed delay. Each run of a duty over a queue is bounded and fails alone: a queue
 * whose run failed (or PostgreSQL being down for the reconciler) never keeps the other queues or
 * the other duties from running. A duty logs only what it changed, summed over a minute at most
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
     * @param trimEvery      delay between retention runs
     * @param reconcileBatch jobs checked per scanned set, queue and run
     * @param effectRetention how old an effect row of a finished job gets before it is deleted (a little older at most:
     *                        {@link #effectRowLifetime}); never shorter than the idempotency window
     */
    public record Settings(Duration interval, int reapBatch, Retention retention, Duration trimEvery, int reconcileBatch,
            Duration effectRetention) {

        public static final Duration DEFAULT_EFFECT_RETENTION = Duration.ofDays(7);
        public static final Settings DEFAULT = new Settings(Duration.ofSeconds(1), 500, Retention.DEFAULT, Duration.ofSeconds(30),
                200, DEFAULT_EFFECT_RETENTION);

        public Settings withInterval(Duration newInterval) {
            return new Settings(newInterval, reapBatch, retention, trimEvery, reconcileBatch, effectRetention);
        }

        public Settings withEffectRetention(Duration age) {
            return new Settings(interval, reapBatch, retention, trimEvery, reconcileBatch, age);
        }

        /** The longest an effect row of a finished job lives: its retention age, and until the effect retention reaches it. */
        public Duration effectRowLifetime() {
            return effectRetention.plus(EffectRetention.longestOverAge(interval, trimEvery));
        }
    }

    /**
     * Effect rows read and, where their jobs are finished, deleted per batch: small, so that each
     * statement is short beside the workers' and the batch held in memory is small.
     */
    private static final int EFFECT_RETENTION_BATCH = 1_000;

    private final List<String> queues;
    private final List<MaintenanceDuty> duties;
    private final MaintenanceListener listener;
    private final Map<MaintenanceDuty, ChangeTally> tallies = new IdentityHashMap<>();
    /** Guarded by this. */
    private final List<ScheduledFuture<?>> schedules = new ArrayList<>();
    private boolean stopped;

    public Maintenance(QueueClient queue, EffectStore effects, List<String> queues, Settings settings, MaintenanceListener listener) {
        this.queues = List.copyOf(queues);
        this.listener = listener;
        this.duties = List.of(
                new Reaper(queue, settings.interval(), settings.reapBatch()),
                new RetentionTrimmer(queue, settings.trimEvery(), settings.retention()),
                new Reconciler(queue, effects, settings.interval(), settings.reconcileBatch()),
                new EffectRetention(queue, effects, settings.interval(), settings.trimEvery(), settings.effectRetention(),
                        EFFECT_RETENTION_BATCH),
                new ScheduleTicker(queue, settings.interval()));
        duties.forEach(duty -> tallies.put(duty, new ChangeTally()));
    }

    /** Schedules every duty on {@code timers}, the first run of each one interval from now. */
    public synchronized void start(ScheduledExecutorService timers) {
        if (!schedules.isEmpty() || stopped) {
            return;
        }
        for (MaintenanceDuty duty : duties) {
            long every = duty.interval().toMillis();
            schedules.add(timers.scheduleWithFixedDelay(() -> runLogged(duty), every, every, TimeUnit.MILLISECONDS));
        }
    }

    /** Stops future runs; a run in progress finishes. */
    public synchronized void stop() {
        stopped = true;
        schedules.forEach(s -> s.cancel(false));
    }

    /**
     * Every duty over every queue, now, on the calling thread (tests, and operators' tools).
     * Failures are reported and skipped like on the schedule.
     */
    public Pass runOnce() {
        Pass total = Pass.NOTHING;
        for (MaintenanceDuty duty : duties) {
            total = total.plus(run(duty));
        }
        return total;
    }

    private Pass run(MaintenanceDuty duty) {
        Pass total = Pass.NOTHING;
        for (String queue : queues) {
            long start = System.nanoTime();
            try {
                Pass pass;
                // One duty's runs never overlap: a slow run delays its next, never doubles it.
                synchronized (duty) {
                    pass = duty.runOnce(queue);
                }
                total = total.plus(pass);
                report(() -> listener.ran(duty.name(), queue, pass, Duration.ofNanos(System.nanoTime() - start)));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "maintenance: the " + duty.name() + " failed on queue '" + queue + "'; its next run retries: " + e, e);
                report(() -> listener.failed(duty.name(), queue, e));
            }
        }
        return total;
    }

    private void runLogged(MaintenanceDuty duty) {
        try {
            Pass pass = tallies.get(duty).add(run(duty), System.nanoTime());
            if (pass != null) {
                LOG.log(Level.INFO, "maintenance: the {0} made {1} changes since its last report ({2} expired leases back to "
                        + "pending, {3} dead-lettered, {4} cancelled as requested, {5} finished jobs trimmed, {6} completed by the reconciler, "
                        + "{7} old effect rows deleted, {8} jobs of recurring schedules made)",
                        new Object[] {duty.name(), pass.changes(), pass.reapedToPending(), pass.reapedToDead(), pass.reapedToCancelled(),
                                pass.trimmed(), pass.reconciled(), pass.effectRowsDeleted(), pass.scheduledJobs()});
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
