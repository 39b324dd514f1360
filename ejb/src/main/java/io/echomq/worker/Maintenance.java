package io.echomq.worker;

import io.echomq.effect.EffectStore;
import io.echomq.queue.QueueClient;
import io.echomq.queue.ReapResult;
import io.echomq.queue.Retention;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The queues' housekeeping, run at a fixed delay: the reaper returns expired leases to pending
 * (the recovery that makes delivery at-least-once), retention trims finished jobs, and the
 * reconciler completes jobs whose effect committed. Each pass works in bounded batches, logs
 * only when it did something, and survives its own failures.
 */
public final class Maintenance {

    private static final Logger LOG = Logger.getLogger(Maintenance.class.getName());

    /**
     * @param interval       delay between passes; also bounds how long an expired lease waits
     * @param reapBatch      jobs reaped per script call (a pass repeats calls up to 10 times)
     * @param retention      bounds on finished jobs
     * @param trimEvery      how often retention runs
     * @param reconcileBatch jobs checked per scanned set and pass
     */
    public record Settings(Duration interval, int reapBatch, Retention retention, Duration trimEvery, int reconcileBatch) {

        public static final Settings DEFAULT =
                new Settings(Duration.ofSeconds(1), 500, Retention.DEFAULT, Duration.ofSeconds(30), 200);

        public Settings withInterval(Duration newInterval) {
            return new Settings(newInterval, reapBatch, retention, trimEvery, reconcileBatch);
        }
    }

    /** What one pass did, summed over the queues. */
    public record Pass(int reapedToPending, int reapedToDead, int trimmed, int reconciled) {

        boolean didSomething() {
            return reapedToPending + reapedToDead + trimmed + reconciled > 0;
        }
    }

    private static final int MAX_REAP_CALLS_PER_PASS = 10;

    private final QueueClient queue;
    private final List<String> queues;
    private final Settings settings;
    private final Reconciler reconciler;
    private Instant nextTrim = Instant.MIN;
    private volatile ScheduledFuture<?> schedule;

    public Maintenance(QueueClient queue, EffectStore effects, List<String> queues, Settings settings) {
        this.queue = queue;
        this.queues = List.copyOf(queues);
        this.settings = settings;
        this.reconciler = new Reconciler(queue, effects);
    }

    public synchronized void start(ScheduledExecutorService timers) {
        if (schedule == null) {
            long every = settings.interval().toMillis();
            schedule = timers.scheduleWithFixedDelay(this::runSafely, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops future passes; a pass in progress finishes. Safe before start and twice. */
    public synchronized void stop() {
        if (schedule != null) {
            schedule.cancel(false);
        }
    }

    /** One pass over every queue, now, on the calling thread. */
    public synchronized Pass runOnce() {
        boolean trim = !Instant.now().isBefore(nextTrim);
        if (trim) {
            nextTrim = Instant.now().plus(settings.trimEvery());
        }
        int toPending = 0;
        int toDead = 0;
        int trimmed = 0;
        int reconciled = 0;
        for (String name : queues) {
            for (int call = 0; call < MAX_REAP_CALLS_PER_PASS; call++) {
                ReapResult reaped = queue.reap(name, settings.reapBatch());
                toPending += reaped.toPending();
                toDead += reaped.toDead();
                if (reaped.total() < settings.reapBatch()) {
                    break;
                }
            }
            if (trim) {
                trimmed += queue.trim(name, settings.retention()).total();
            }
            reconciled += reconciler.reconcile(name, settings.reconcileBatch());
        }
        return new Pass(toPending, toDead, trimmed, reconciled);
    }

    private void runSafely() {
        try {
            Pass pass = runOnce();
            if (pass.didSomething()) {
                LOG.log(Level.INFO, "maintenance: {0} expired leases back to pending, {1} dead-lettered, {2} finished jobs "
                        + "trimmed, {3} jobs completed by the reconciler",
                        new Object[] {pass.reapedToPending(), pass.reapedToDead(), pass.trimmed(), pass.reconciled()});
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "maintenance pass failed; the next one retries: " + e, e);
        }
    }
}
