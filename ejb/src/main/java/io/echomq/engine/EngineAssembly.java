package io.echomq.engine;

import io.echomq.effect.EffectStore;
import io.echomq.handler.JobHandler;
import io.echomq.maintenance.Maintenance;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.outbox.Outbox;
import io.echomq.queue.QueueClient;
import io.echomq.queue.shard.QueueShards;
import io.echomq.worker.FaultInjector;
import io.echomq.worker.QueueWorker;
import io.echomq.worker.SafeListener;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one place workers and maintenance are put together, over a queue client and an effect
 * store someone opened: the WAR and the standalone worker through {@link RunningEngine}, the
 * tests and the benchmark directly, so a setting cannot mean one thing in one runtime and
 * another elsewhere. It remembers what it started and stops all of it with one deadline.
 *
 * <p>Thread-safe; workers may be added while others run (a test's zombie and its successor).
 */
public final class EngineAssembly {

    private final QueueClient queue;
    /** Which client's parts reach each queue's jobs: {@link #queue}'s, or a sharded queue's. */
    private final QueueShards shards;
    private final EffectStore effects;
    private final Outbox outbox;
    private final EngineThreads threads;
    private final String workerId;
    private final WorkerListener listener;
    private final MaintenanceListener maintenanceListener;
    private final List<QueueWorker> workers = new CopyOnWriteArrayList<>();
    private final List<Maintenance> maintenance = new CopyOnWriteArrayList<>();

    /**
     * @param workerId names this engine's claims in job histories (host and process, say)
     * @param listener hears every worker's events; its failures never reach a job
     */
    public EngineAssembly(QueueClient queue, EffectStore effects, EngineThreads threads, String workerId, WorkerListener listener,
            MaintenanceListener maintenanceListener) {
        this(queue, effects, Outbox.NONE, threads, workerId, listener, maintenanceListener);
    }

    /**
     * @param outbox where the handlers' follow-up jobs are written: the outbox of the database the
     *               effect store's transactions run on, with its relay ({@link Outbox#NONE}: follow-ups are refused)
     */
    public EngineAssembly(QueueClient queue, EffectStore effects, Outbox outbox, EngineThreads threads, String workerId,
            WorkerListener listener, MaintenanceListener maintenanceListener) {
        this(QueueShards.none(queue), effects, outbox, threads, workerId, listener, maintenanceListener);
    }

    /**
     * @param shards the queues' layouts: a worker of a sharded queue claims over its shards, and
     *               maintenance keeps house on every shard of it (docs/SHARDING.md, 5 and 7); a
     *               follow-up into a sharded queue is written only when the outbox's relay routes
     *               that queue over the same shards ({@link Outbox#over})
     */
    public EngineAssembly(QueueShards shards, EffectStore effects, Outbox outbox, EngineThreads threads, String workerId,
            WorkerListener listener, MaintenanceListener maintenanceListener) {
        this.queue = shards.unsharded();
        this.shards = shards;
        this.effects = effects;
        this.outbox = outbox.over(shards);
        this.threads = threads;
        this.workerId = workerId;
        this.listener = SafeListener.of(listener);
        this.maintenanceListener = maintenanceListener;
    }

    public QueueClient queue() {
        return queue;
    }

    /** The queues' layouts over shards. */
    public QueueShards shards() {
        return shards;
    }

    public EffectStore effects() {
        return effects;
    }

    /**
     * Starts a worker that drains {@code queueName} with {@code handler}. The one production
     * choice of fault injector: every runtime starts its workers here, with {@link FaultInjector#NONE}.
     */
    public QueueWorker startWorker(String queueName, JobHandler handler, WorkerSettings settings) {
        return startWorker(queueName, handler, settings, workerId, FaultInjector.NONE);
    }

    /**
     * Starts a worker under a worker id of its own, with crashes injected where {@code faults}
     * says: for the guarantees lab and the proofs only, which run several workers of one engine
     * this way.
     */
    public QueueWorker startWorker(String queueName, JobHandler handler, WorkerSettings settings, String id, FaultInjector faults) {
        QueueWorker worker = new QueueWorker(queueName, handler, shards.leases(queueName), effects, outbox, settings, id,
                threads.leaseUpkeep(), faults, listener,
                queue.telemetry().deliveries(queueName, settings.lease(), ids -> shards.creationContexts(queueName, ids)));
        workers.add(worker);
        worker.start(threads.runners());
        return worker;
    }

    /** The maintenance duties over {@code queues}, not started: for runs on the caller's thread. */
    public Maintenance maintenance(List<String> queues, Maintenance.Settings settings) {
        Maintenance duties = new Maintenance(shards, effects, queues, settings, workerId + "#" + Long.toHexString(ThreadLocalRandom.current().nextLong()), maintenanceListener);
        maintenance.add(duties);
        return duties;
    }

    /**
     * The maintenance duties over {@code queues}, each on its own schedule, on threads apart from
     * lease upkeep: a duty waiting on the database never delays a heartbeat.
     */
    public Maintenance startMaintenance(List<String> queues, Maintenance.Settings settings) {
        Maintenance duties = maintenance(queues, settings);
        duties.start(threads.maintenance(), threads.dutyRuns());
        return duties;
    }

    /**
     * Stops everything it started, with one deadline: maintenance stops, every worker stops
     * claiming at once, then all of them get {@code grace} in all to finish what they hold (not
     * a grace each, while later queues keep leasing). Safe to call twice.
     *
     * @return true when every worker ended in time
     */
    public boolean stop(Duration grace) {
        stopClaiming();
        return awaitStopped(System.nanoTime() + grace.toNanos());
    }

    /**
     * The first half of {@link #stop}: maintenance stops and no worker leases again. For a caller
     * that stops several assemblies under one deadline (the resource adapter's activations).
     */
    public void stopClaiming() {
        maintenance.forEach(Maintenance::stop);
        workers.forEach(QueueWorker::stopClaiming);
    }

    /**
     * The second half of {@link #stop}: waits for every worker to finish what it holds, until
     * {@code deadlineNanos} ({@link System#nanoTime()}).
     *
     * @return true when every worker ended in time
     */
    public boolean awaitStopped(long deadlineNanos) {
        boolean all = true;
        for (QueueWorker worker : workers) {
            all &= worker.awaitStopped(deadlineNanos);
        }
        return all;
    }
}
