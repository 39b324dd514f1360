package io.echomq.engine;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's threads, and the one place that decides which work shares a thread with which. A
 * runtime says only where threads come from (the container's managed thread factory in the WAR,
 * plain threads in the standalone worker, the adapter's own beside the WorkManager) and closes
 * this when it stops; {@link EngineAssembly} puts each task on the pool named for it.
 *
 * <p>Invariant: lease upkeep never waits behind work that waits on the database. Heartbeats and
 * hard timeouts have a scheduler of their own, which nothing else uses: when the application's
 * connection pool is exhausted and maintenance waits for a connection, leases are still extended.
 *
 * <p>Thread-safe. Closing it stops the pools it made; a runners executor the caller passed in
 * stays the caller's to stop.
 */
public final class EngineThreads implements AutoCloseable {

    /**
     * Two, so that one slow Valkey node (its socket timeout on a cluster) does not hold the beats
     * of queues served by the other nodes for as long.
     */
    static final int LEASE_UPKEEP_THREADS = 2;
    /** Maintenance's schedules: each run is handed to {@link #dutyRuns} and waited for a bounded time. */
    static final int MAINTENANCE_THREADS = 2;

    private final ExecutorService runners;
    private final boolean ownsRunners;
    private final ScheduledThreadPoolExecutor leaseUpkeep;
    private final ScheduledThreadPoolExecutor maintenance;
    private final ExecutorService dutyRuns;

    private EngineThreads(ExecutorService runners, boolean ownsRunners, ThreadFactory threads) {
        this.runners = runners;
        this.ownsRunners = ownsRunners;
        this.leaseUpkeep = scheduler(LEASE_UPKEEP_THREADS, threads);
        this.maintenance = scheduler(MAINTENANCE_THREADS, threads);
        // Unbounded, but Maintenance starts a duty's run only once the duty's previous run returned: one thread per duty at most.
        this.dutyRuns = Executors.newCachedThreadPool(threads);
    }

    /** Every thread from {@code threads}: runner loops get one each, for as long as they run. */
    public static EngineThreads from(ThreadFactory threads) {
        return new EngineThreads(Executors.newCachedThreadPool(threads), true, threads);
    }

    /**
     * Runner loops on {@code runners} (the adapter's WorkManager; a test's own pool), which the
     * caller stops; every other thread from {@code threads}.
     */
    public static EngineThreads from(ExecutorService runners, ThreadFactory threads) {
        return new EngineThreads(runners, false, threads);
    }

    /** Plain daemon threads named {@code prefix-N}: for the standalone worker, the tests and the benchmark. */
    public static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + "-" + n.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Runs the workers' runner loops: a thread for each runner of every queue, for the runner's life. */
    public ExecutorService runners() {
        return runners;
    }

    /** Heartbeats and hard timeouts ({@code LeaseKeeper}), and nothing else: never a task that waits on the database. */
    public ScheduledExecutorService leaseUpkeep() {
        return leaseUpkeep;
    }

    /** The maintenance duties' schedules, and other short tasks that may wait on the database or Valkey. */
    public ScheduledExecutorService maintenance() {
        return maintenance;
    }

    /** Where maintenance runs each duty's run over a queue, so that its schedule waits for it a bounded time only. */
    public ExecutorService dutyRuns() {
        return dutyRuns;
    }

    /** Stops the pools this made, interrupting what runs there; safe to call twice. */
    @Override
    public void close() {
        for (ExecutorService pool : List.of(leaseUpkeep, maintenance, dutyRuns)) {
            pool.shutdownNow();
        }
        if (ownsRunners) {
            runners.shutdownNow();
        }
    }

    private static ScheduledThreadPoolExecutor scheduler(int size, ThreadFactory threads) {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(size, threads);
        // Cancelled schedules (a stopped worker's keeper, a stopped maintenance) leave the queue at once.
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }
}
