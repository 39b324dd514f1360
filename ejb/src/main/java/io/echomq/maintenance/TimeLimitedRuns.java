package io.echomq.maintenance;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Runs each scheduled run of a duty over a queue on a thread of its own and waits for it the
 * maintenance timeout at most, so that a run stuck on the database (no free connection in the
 * application's pool, a lock, a slow statement) holds no schedule thread for longer. A run that
 * outlives the limit is interrupted and left to end on its own thread; until it has, the duty's
 * later runs are skipped, each reported as timed out. So a stuck duty holds one thread at most,
 * and its runs never overlap.
 *
 * <p>This is the portable bound on waiting for a connection: a container's pool offers no
 * standard acquisition timeout (a {@code DataSource}'s login timeout concerns opening physical
 * connections, and a pool may ignore it). Statements are bounded too, by the query timeout of
 * maintenance's effect store ({@code EffectTransactions#withQueryTimeout}), which frees the
 * connection on the database's side.
 *
 * <p>Thread-safe: called by the schedule threads, one run per duty at a time.
 */
final class TimeLimitedRuns {

    private final ExecutorService threads;
    private final Duration limit;
    /** Per duty, its run that outlived the limit and has not returned yet: written by the schedule and by the run itself. */
    private final Map<MaintenanceDuty, Run> overdue = new ConcurrentHashMap<>();

    TimeLimitedRuns(ExecutorService threads, Duration limit) {
        this.threads = threads;
        this.limit = limit;
    }

    /**
     * {@code work}, {@code duty}'s run over {@code queue}, on a thread of {@link #threads}, waited
     * for {@link #limit} at most.
     *
     * @throws DutyTimedOutException the run took longer (it was interrupted), or the duty's last one still has not returned
     */
    Pass run(MaintenanceDuty duty, String queue, Supplier<Pass> work) {
        Run late = overdue.get(duty);
        if (late != null) {
            throw new DutyTimedOutException(duty.name(), queue, limit, late.queue);
        }
        Run run = new Run(duty, queue, work);
        threads.execute(run);
        try {
            return run.result.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            overdue.put(duty, run);
            run.giveUp();
            throw new DutyTimedOutException(duty.name(), queue, limit, null);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failed) {
                throw failed;
            }
            if (e.getCause() instanceof Error fatal) {
                throw fatal;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            overdue.put(duty, run);
            run.giveUp();
            throw new IllegalStateException("maintenance stopped while the " + duty.name() + " ran on queue '" + queue + "'", e);
        }
    }

    /** One run; its thread is interrupted only while it runs this, never once it has moved on to other work. */
    private final class Run implements Runnable {

        final MaintenanceDuty duty;
        final String queue;
        final Supplier<Pass> work;
        final CompletableFuture<Pass> result = new CompletableFuture<>();
        /** Guarded by this. */
        private Thread thread;
        private boolean ended;

        Run(MaintenanceDuty duty, String queue, Supplier<Pass> work) {
            this.duty = duty;
            this.queue = queue;
            this.work = work;
        }

        @Override
        public void run() {
            synchronized (this) {
                thread = Thread.currentThread();
            }
            try {
                result.complete(work.get());
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            } finally {
                synchronized (this) {
                    ended = true;
                    thread = null;
                }
                overdue.remove(duty, this);
                // An interrupt that arrived as the work returned is this run's, not the next task's on this thread.
                Thread.interrupted();
            }
        }

        /** Interrupts the work (a wait for a pooled connection ends; a statement ends at its query timeout). */
        void giveUp() {
            synchronized (this) {
                if (thread != null) {
                    thread.interrupt();
                }
                if (ended) {
                    overdue.remove(duty, this);
                }
            }
        }
    }
}
