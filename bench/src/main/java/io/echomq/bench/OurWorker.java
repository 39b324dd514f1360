package io.echomq.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.engine.EngineAssembly;
import io.echomq.engine.EngineThreads;
import io.echomq.handler.BatchJobHandler;
import io.echomq.handler.JobHandler;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.RetryOutcome;
import io.echomq.maintenance.Maintenance;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.RedisClient;

/**
 * Our worker, exactly as the engine runs it (the engine assembly, the effect store, the demo handler),
 * draining a preloaded queue or fed at a fixed rate. Each run uses a fresh queue and its own
 * pool, and checks afterwards that every job's effect is in the ledger exactly once.
 */
final class OurWorker {

    enum Mode {
        /** One PostgreSQL transaction per job (any handler). */
        PER_JOB,
        /** Batches of up to {@link #batchSize} jobs per transaction (a batch-capable handler). */
        BATCHED
    }

    enum Effect {
        /** The demo charge: one ledger row and a balance update per job. */
        LEDGER,
        /** Nothing but the effect store's own row. */
        NOOP
    }

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final Servers servers;
    /** Most jobs per transaction in the batched mode. */
    private final int batchSize;

    OurWorker(Servers servers, int batchSize) {
        this.servers = servers;
        this.batchSize = batchSize;
    }

    Measurement drain(Mode mode, Effect effect, int concurrency, int jobs) throws InterruptedException {
        return drain(mode, effect, true, concurrency, jobs);
    }

    /** A drain on a queue whose job-event stream is on (the default cap) or off. */
    Measurement drain(Mode mode, Effect effect, boolean eventStream, int concurrency, int jobs) throws InterruptedException {
        try (Run run = new Run(mode, effect, concurrency, jobs)) {
            if (!eventStream) {
                run.queue.admin().setEventStream(run.queueName, 0);
            }
            Workload.preload(run.queue, run.queueName, jobs);
            Measurement drained = servers.withValkeyCpu(() -> {
                double cpu = Measurement.jvmCpuNow();
                long start = System.nanoTime();
                run.startWorker();
                run.awaitAll();
                return Measurement.throughput(jobs, (System.nanoTime() - start) / 1e9, cpu);
            });
            run.verify();
            return drained;
        }
    }

    /** The children each parent of {@link #drainFlows} waits for: a flow is one parent and these. */
    static final int FLOW_CHILDREN = 10;

    /**
     * {@link #drain} of flows instead of plain jobs: {@code jobs / 11} flows of a parent and
     * {@link #FLOW_CHILDREN} children, all on one queue, preloaded (the children pending, the
     * parents waiting); timed until every parent and child completed. The engine's maintenance
     * runs beside the worker with its default settings, as in production: its flow relay carries
     * each child's settlement to its parent, so the figure prices every edge.
     */
    Measurement drainFlows(Effect effect, int concurrency, int jobs) throws InterruptedException {
        int flows = Math.max(1, jobs / (FLOW_CHILDREN + 1));
        int total = flows * (FLOW_CHILDREN + 1);
        try (Run run = new Run(Mode.BATCHED, effect, concurrency, total)) {
            Workload.preloadFlows(run.queue, run.queueName, flows, FLOW_CHILDREN);
            Measurement drained = servers.withValkeyCpu(() -> {
                double cpu = Measurement.jvmCpuNow();
                long start = System.nanoTime();
                run.startWorker();
                run.engine.startMaintenance(List.of(run.queueName), Maintenance.Settings.DEFAULT);
                run.awaitAll();
                return Measurement.throughput(total, (System.nanoTime() - start) / 1e9, cpu);
            });
            run.verify();
            return drained;
        }
    }

    /**
     * An open-loop producer at {@code rate} jobs/s; latency from just before each enqueue to its
     * effect's commit. Each run has a new worker, pool and queue; the first {@code untimed} jobs,
     * sent at the same rate, bring them to a steady state and are not timed, so the percentiles are
     * those of a worker that is already running, as in production.
     */
    Measurement latency(Mode mode, Effect effect, int concurrency, int untimed, int timed, double rate) throws InterruptedException {
        int jobs = untimed + timed;
        try (Run run = new Run(mode, effect, concurrency, jobs)) {
            run.startWorker();
            long[] maxLateNanos = new long[1];
            Measurement measured = servers.withValkeyCpu(() -> {
                double cpu = Measurement.jvmCpuNow();
                long start = System.nanoTime();
                maxLateNanos[0] = OpenLoop.run(run.queue, run.queueName, rate, jobs, untimed, Duration.ofDays(1)).maxLateNanos();
                run.awaitAll();
                double seconds = (System.nanoTime() - start) / 1e9;
                return new Measurement(jobs, seconds, Stats.millis(run.latencies, 50), Stats.millis(run.latencies, 99),
                        Measurement.jvmCpuNow() - cpu, Double.NaN);
            });
            run.verify();
            Histogram latencies = run.latencies;
            System.err.printf(java.util.Locale.ROOT, "bench: %s latency ms p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f; "
                    + "producer at most %.1f ms late; %d claim calls, %d of them with jobs; claim call ms p50 %.1f p99 %.1f; "
                    + "effect ms p50 %.1f p99 %.1f%n", run.queueName,
                    Stats.millis(latencies, 50), Stats.millis(latencies, 90), Stats.millis(latencies, 99),
                    Stats.millis(latencies, 99.9), Stats.millis(latencies, 100), maxLateNanos[0] / 1e6, run.claimCalls.get(),
                    run.claimsWithJobs.get(), Stats.millis(run.claimNanos, 50), Stats.millis(run.claimNanos, 99),
                    Stats.millis(run.effectNanos, 50), Stats.millis(run.effectNanos, 99));
            run.stages.print(run.queueName, measured);
            return measured;
        }
    }

    /** One run's queue, pools, worker and counters. */
    private final class Run implements AutoCloseable {

        final String queueName;
        final RedisClient redis = servers.newRedis();
        final QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
        final HikariDataSource pool;
        final EffectStore effects;
        final ExecutorService threads = Executors.newCachedThreadPool();
        final EngineThreads engineThreads = EngineThreads.from(threads, EngineThreads.daemonThreads("bench-timers"));
        /** Built as every runtime builds the engine; null until the worker starts. */
        EngineAssembly engine;
        final CountDownLatch completed;
        /** Send to effect committed, of the timed jobs; nanoseconds. */
        final Histogram latencies = Stats.concurrentNanos();
        final AtomicInteger failures = new AtomicInteger();
        final AtomicInteger claimCalls = new AtomicInteger();
        final Histogram claimNanos = Stats.concurrentNanos();
        final Histogram effectNanos = Stats.concurrentNanos();
        final AtomicInteger claimsWithJobs = new AtomicInteger();
        /** Where a timed job's latency went, stage by stage. */
        final LatencyStages stages = new LatencyStages();
        final Mode mode;
        final Effect effect;
        final int concurrency;
        final int jobs;

        Run(Mode mode, Effect effect, int concurrency, int jobs) {
            this.mode = mode;
            this.effect = effect;
            this.concurrency = concurrency;
            this.jobs = jobs;
            this.queueName = "bench-" + mode.name().toLowerCase() + "-" + effect.name().toLowerCase() + "-c" + concurrency
                    + "-" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet();
            this.pool = servers.pool(queueName, concurrency + 2);
            this.effects = new EffectStore(Jdbi.create(pool), EffectSettings.DEFAULT);
            this.completed = new CountDownLatch(jobs);
        }

        void startWorker() {
            WorkerSettings settings = WorkerSettings.DEFAULT.withConcurrency(concurrency).withBatchSize(batchSize)
                    .withLease(Duration.ofSeconds(30)).withIdlePoll(Duration.ofMillis(50));
            engine = new EngineAssembly(queue, effects, engineThreads, "bench",
                    new WorkerListener() {
                        @Override
                        public void claimed(ClaimedJob job) {
                            if (job.payload().contains("sentNanos")) {
                                stages.started(job, Workload.sentNanos(job.payload()));
                            }
                        }

                        @Override
                        public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
                            effectNanos.recordValue(took.toNanos());
                            if (job.payload().contains("sentNanos")) {
                                latencies.recordValue(System.nanoTime() - Workload.sentNanos(job.payload()));
                                stages.committed(job, took);
                            }
                        }

                        @Override
                        public void claimCall(String queue, Duration took, int claimed) {
                            claimCalls.incrementAndGet();
                            claimNanos.recordValue(took.toNanos());
                            if (claimed > 0) {
                                claimsWithJobs.incrementAndGet();
                                stages.claimCall(took, claimed);
                            }
                        }

                        @Override
                        public void completed(ClaimedJob job) {
                            stages.acknowledged(job);
                            completed.countDown();
                        }

                        @Override
                        public void retried(ClaimedJob job, RetryOutcome outcome, String error) {
                            if (failures.incrementAndGet() <= 5) {
                                System.err.println("bench: job " + job.id() + " failed: " + error);
                            }
                        }
                    }, MaintenanceListener.NONE);
            engine.startWorker(queueName, handler(), settings);
        }

        private JobHandler handler() {
            LedgerChargeHandler ledger = new LedgerChargeHandler();
            return switch (mode) {
                case PER_JOB -> effect == Effect.LEDGER ? ledger::handle : job -> { };
                case BATCHED -> effect == Effect.LEDGER ? ledger : (BatchJobHandler) batch -> { };
            };
        }

        void awaitAll() throws InterruptedException {
            if (!completed.await(30, TimeUnit.MINUTES)) {
                throw new IllegalStateException(queueName + ": " + completed.getCount() + " jobs not completed in 30 minutes");
            }
        }

        /** Every job's effect exactly once, or the figure is worthless. */
        void verify() {
            if (effect == Effect.LEDGER) {
                LedgerSummary ledger = LedgerSummary.of(Jdbi.create(pool), queueName);
                if (ledger.distinctJobs() != jobs || ledger.duplicates() != 0) {
                    throw new IllegalStateException(queueName + ": ledger " + ledger + " for " + jobs + " jobs");
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            if (engine != null) {
                engine.stop(Duration.ofSeconds(10));
            }
            threads.shutdownNow();
            engineThreads.close();
            threads.awaitTermination(10, TimeUnit.SECONDS);
            pool.close();
            redis.close();
        }
    }
}
