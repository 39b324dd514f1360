package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.Migrations;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueOutcomeUnknownException;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Submissions;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.queue.shard.ShardedQueue;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClusterClient;

/**
 * 1, 2 and 3 app servers (standalone worker JVMs) on one set of queues of a real Valkey Cluster:
 * three queues on three different masters, four lanes each, the demo ledger handler writing to
 * PostgreSQL. Each configuration runs {@code bench.repeats} times. A run keeps every lane of every
 * queue supplied (a feeder tops each queue up to {@link #BACKLOG_PER_QUEUE} pending jobs, lanes
 * interleaved) so the workers always have work, lets them warm up for {@code bench.warmup-s}
 * (JIT, pools, first claims: excluded), and measures a steady window of {@code bench.steady-s}:
 * jobs/s, each worker's CPU per job, Valkey's own CPU ({@code INFO cpu}), PostgreSQL's, the
 * machine's, the share of jobs each instance completed, and lane fairness (the least served
 * lane's completions in the window over the most served one's, 1.00 = equal). Then the feeder
 * stops, the queues drain, and every job submitted is counted in the ledger (lost, duplicates).
 * A summary gives, per instance count, the median and the spread over the repeats of jobs/s and
 * of worker CPU per job, and the latter's ratio to one instance's.
 *
 * <p>Run: {@code mvn -q -Pbench -pl bench/scaling -am verify -Dtest=ScalingBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -Dbench.instances=1,2,3},
 * {@code -Dbench.repeats=3}, {@code -Dbench.warmup-s=15}, {@code -Dbench.steady-s=30},
 * {@code -Dbench.concurrency=4}). The warm-up is per instance: N instances warm up N times as long
 * ({@code -Dbench.warmup-per-instance=false} for the same warm-up in every row; see {@link #warmupOf}).
 *
 * <p>{@code -Dbench.rate=N} (jobs/s over all queues, default 0) feeds at that fixed rate instead of
 * keeping a backlog: with N well below what one instance drains, the machine is not saturated by
 * any instance count, so worker CPU per job shows what an instance adds (its duties, its idle
 * polls), not the time-slicing of JVMs that a full machine makes every added one pay.
 */
class ScalingBenchmark {

    private static final int QUEUES = 3;
    private static final int LANES = 4;
    /** Pending jobs the feeder keeps in each queue: a few claim batches per worker, so no claim comes back empty. */
    private static final int BACKLOG_PER_QUEUE = 4_000;
    private static final Duration FEED_EVERY = Duration.ofMillis(100);
    private static final Duration DRAIN_DEADLINE = Duration.ofMinutes(3);

    private final List<Integer> instanceCounts = Arrays.stream(System.getProperty("bench.instances", "1,2,3").split(","))
            .map(String::strip).map(Integer::parseInt).toList();
    private final int repeats = Integer.getInteger("bench.repeats", 3);
    private final Duration warmup = Duration.ofSeconds(Integer.getInteger("bench.warmup-s", 15));
    /** {@code -Dbench.warmup-per-instance} (default true): the warm-up is {@link #warmup} times the instances (see {@link #warmupOf}). */
    private final boolean warmupPerInstance = Boolean.parseBoolean(System.getProperty("bench.warmup-per-instance", "true"));
    private final Duration steady = Duration.ofSeconds(Integer.getInteger("bench.steady-s", 30));
    private final int concurrency = Integer.getInteger("bench.concurrency", 4);
    /** Jobs/s over every queue, fed at a fixed pace; 0: keep a backlog, so the workers are never without work. */
    private final int rate = Integer.getInteger("bench.rate", 0);
    private static final Duration FEEDER_READ_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration UNAVAILABLE_PAUSE = Duration.ofMillis(200);
    /** The effect store's size per job, read at the end of the latest run (the tables are emptied between runs). */
    private String effectRowSize = "";

    @Test
    void severalAppServersShareTheQueuesWithoutDuplicatesAndWithFairLanes() throws Exception {
        List<Row> rows = new ArrayList<>();
        try (Services services = Services.start("scaling")) {
            for (int repeat = 1; repeat <= repeats; repeat++) {
                for (int instances : instanceCounts) {
                    Row row = measure(instances, repeat, services);
                    rows.add(row);
                    // Each run's row as it ends, so that a later run that fails leaves the earlier ones on record.
                    System.out.print(table(List.of(row)));
                }
            }
        }
        System.out.println(table(rows) + summary(rows) + effectRowSize);
        for (Row row : rows) {
            assertThat(row.duplicates).as("duplicates with %d instances", row.instances).isZero();
            assertThat(row.lost).as("lost with %d instances", row.instances).isZero();
            assertThat(row.laneFairness).as("lane fairness with %d instances", row.instances).isGreaterThan(0.8);
        }
    }

    /**
     * What both benchmarks run on: a database with the effect store's and the demo ledger's tables,
     * a 3-master Valkey Cluster, and the feeder's client of it.
     */
    private record Services(PostgresService.Database database, Jdbi jdbi, ValkeyCluster cluster, RedisClusterClient redis,
                            QueueClient queue) implements AutoCloseable {

        static Services start(String databaseName) {
            PostgresService.Database database = RealServices.postgres().createDatabase(databaseName);
            Migrations.migrate(database.dataSource());
            LedgerChargeHandler.createTables(database.dataSource());
            ValkeyCluster cluster = ValkeyCluster.start();
            try {
                RedisClusterClient redis = patientClient(cluster);
                return new Services(database, Jdbi.create(database.dataSource()), cluster, redis, QueueClient.connect(redis, QueueSettings.DEFAULT));
            } catch (RuntimeException e) {
                cluster.close();
                throw e;
            }
        }

        @Override
        public void close() {
            try (cluster) {
                redis.close();
            }
        }
    }

    /**
     * The feeder's client, waiting up to {@link #FEEDER_READ_TIMEOUT} for a reply: on the shared
     * machine a master sometimes answered a batch of submissions after more than the client's
     * default 2 s, and a submission whose outcome is unknown voids the run (its jobs cannot be counted).
     */
    private static RedisClusterClient patientClient(ValkeyCluster cluster) {
        return RedisClusterClient.builder().nodes(cluster.nodes())
                .clientConfig(DefaultJedisClientConfig.builder().from(cluster.clientConfig())
                        .socketTimeoutMillis((int) FEEDER_READ_TIMEOUT.toMillis()).build())
                .build();
    }

    private static final int HOT_LANES = 12;
    private final List<Integer> hotShardCounts = Arrays.stream(System.getProperty("bench.hot-shards", "1,3").split(","))
            .map(String::strip).map(Integer::parseInt).toList();
    private final int hotInstances = Integer.getInteger("bench.hot-instances", 1);

    /**
     * One hot queue of {@link #HOT_LANES} lanes, laid out over 1 and then 3 shards
     * ({@code echomq.queues.<q>.shards}, docs/SHARDING.md 9.2) on the 3-master cluster, with the same
     * feeder, warm-up and steady window: jobs/s, each master's Valkey CPU, lane fairness, lost and
     * duplicates. Run: {@code mvn -q -Pbench -pl bench/scaling -am verify -Dtest=ScalingBenchmark#oneHotQueue*
     * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -Dbench.hot-shards=1,3}, {@code -Dbench.hot-instances=1},
     * {@code -Dbench.repeats}, {@code -Dbench.warmup-s}, {@code -Dbench.steady-s}, {@code -Dbench.concurrency}).
     */
    @Test
    void oneHotQueueOverOneAndThreeShardsWithoutDuplicatesAndWithFairLanes() throws Exception {
        List<HotRow> rows = new ArrayList<>();
        try (Services services = Services.start("hotqueue")) {
            for (int repeat = 1; repeat <= repeats; repeat++) {
                for (int shards : hotShardCounts) {
                    rows.add(measureHot(shards, repeat, services));
                }
            }
        }
        System.out.println(hotTable(rows));
        for (HotRow row : rows) {
            assertThat(row.duplicates).as("duplicates with %d shards", row.shards).isZero();
            assertThat(row.lost).as("lost with %d shards", row.shards).isZero();
            assertThat(row.laneFairness).as("lane fairness with %d shards", row.shards).isGreaterThan(0.8);
        }
    }

    private HotRow measureHot(int shards, int repeat, Services services) throws Exception {
        String hot = "hot" + shards + "-" + System.nanoTime();
        FeedTarget target = shards == 1 ? FeedTarget.of(services.queue)
                : FeedTarget.of(ShardedQueue.connect(services.redis, QueueSettings.DEFAULT, ShardLayout.of(hot, shards)));
        String loadAtStart = loadAverage();
        Window window = runWindow(services, List.of(hot), HOT_LANES, target, hotInstances,
                Map.of("echomq.queues." + hot + ".shards", Integer.toString(shards)));
        return new HotRow(shards, repeat, window.jobs(), window.seconds(), window.duplicates, window.lost, window.laneFairness(),
                List.copyOf(window.after.valkeyPercentByPort(window.before).values()), window.after.percentOfKind(window.before, "worker"),
                window.after.percentOfKind(window.before, "postgres"), window.after.percentOfKind(window.before, "bench"),
                window.after.machinePercent(window.before), loadAtStart, loadAverage());
    }

    /** The 1-minute load average now: what else ran on the cores beside the benchmark. */
    private static String loadAverage() throws java.io.IOException {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }

    private String hotTable(List<HotRow> rows) {
        StringBuilder out = new StringBuilder("\nhot queue: 1 queue x " + HOT_LANES + " lanes on a 3-master cluster, demo ledger handler, "
                + Runtime.getRuntime().availableProcessors() + " cores, " + hotInstances + " worker JVM(s) of concurrency " + concurrency
                + ", warm-up " + warmupOf(hotInstances).toSeconds() + " s excluded, steady window " + steady.toSeconds() + " s\n");
        out.append(String.format("%-6s | %6s | %6s | %7s | %6s | %4s | %4s | %9s | %-20s | %7s | %9s | %6s | %8s | %-11s%n", "shards",
                "repeat", "jobs", "seconds", "jobs/s", "dups", "lost", "lane_fair", "valkey% per master", "worker%", "postgres%", "bench%",
                "machine%", "load start/end"));
        for (HotRow r : rows) {
            out.append(String.format("%-6d | %6d | %6d | %7.1f | %6.0f | %4d | %4d | %9.2f | %-20s | %7.0f | %9.0f | %6.0f | %8.0f | %s/%s%n",
                    r.shards, r.repeat, r.jobs, r.seconds, r.jobs / r.seconds, r.duplicates, r.lost, r.laneFairness,
                    percents(r.valkeyPerMaster), r.workerCpu, r.postgresCpu, r.benchCpu, r.machineCpu, r.loadAtStart, r.loadAtEnd));
        }
        out.append("valkey% per master: each master's INFO cpu over the window, percent of one core, in port order; "
                + "load: the 1-minute load average when the run started and ended\n");
        return out.toString();
    }

    private record HotRow(int shards, int repeat, long jobs, double seconds, long duplicates, long lost, double laneFairness,
                          List<Double> valkeyPerMaster, double workerCpu, double postgresCpu, double benchCpu, double machineCpu,
                          String loadAtStart, String loadAtEnd) {
    }

    private Row measure(int instances, int repeat, Services services) throws Exception {
        List<String> queues = services.cluster.hashTagsOnDistinctMasters("scale" + instances + "-" + System.nanoTime(), QUEUES);
        Window window = runWindow(services, queues, LANES, FeedTarget.of(services.queue), instances, Map.of());
        if (window.unavailable > 0) {
            System.out.printf("scaling: %d instance(s), repeat %d: %d calls refused by a cluster down for a moment (sent again, or the round skipped)%n",
                    instances, repeat, window.unavailable);
        }
        effectRowSize = window.effectRowSize;
        List<Double> shares = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            shares.add(100.0 * (window.completedAfter.get(i) - window.completedBefore.get(i)) / Math.max(1, window.jobs()));
        }
        Map<Long, Double> cpuByWorker = window.after.percentByPid(window.before, "worker");
        Map<Long, Double> compilerByWorker = window.after.compilerPercentByPid(window.before, "worker");
        List<Double> workerCpu = window.workerPids.stream().map(pid -> cpuByWorker.getOrDefault(pid, 0.0)).toList();
        double workerJitCpu = window.workerPids.stream().mapToDouble(pid -> compilerByWorker.getOrDefault(pid, 0.0)).sum();
        Map<String, Double> workerThreads = new TreeMap<>();
        window.after.threadPercentByPid(window.before, "worker").values()
                .forEach(threads -> threads.forEach((kind, percent) -> workerThreads.merge(kind, percent, Double::sum)));
        return new Row(instances, repeat, window.jobs(), window.seconds(), window.duplicates, window.lost, window.laneFairness(), shares,
                workerCpu, workerJitCpu, workerThreads, window.after.valkeyPercent(window.before),
                window.after.percentOfKind(window.before, "valkey"), window.after.percentOfKind(window.before, "postgres"),
                window.after.percentOfKind(window.before, "bench"), window.after.machinePercent(window.before),
                window.after.valkeyScriptCalls(window.before), window.commits);
    }

    /**
     * One run: {@code instances} worker JVMs on {@code queues} (with {@code settings}), the feeder
     * keeping every lane supplied, the warm-up, the steady window read at both ends, then the
     * feeder stopped, the queues drained and counted in the ledger, and the tables emptied.
     */
    private Window runWindow(Services services, List<String> queues, int lanes, FeedTarget target, int instances,
            Map<String, String> settings) throws Exception {
        List<WorkerJvm> workers = new ArrayList<>();
        try {
            startWorkers(services, queues, instances, settings, workers);
            Map<Long, String> processes = processesToMeasure(services.cluster, workers, services.jdbi);
            List<Integer> masters = services.cluster.masterPorts();
            Feeder feeder = new Feeder(target, queues, lanes, rate);
            Thread feeding = new Thread(feeder, "feeder");
            feeding.setDaemon(true);
            feeding.start();
            Thread.sleep(warmupOf(instances).toMillis());
            CpuSample before = CpuSample.take(processes, masters, services.cluster::connectTo);
            Map<String, Map<String, Long>> lanesBefore = chargesPerLane(services.jdbi, queues);
            List<Long> completedBefore = completedPerWorker(workers);
            long commitsBefore = commits(services.jdbi);
            Thread.sleep(steady.toMillis());
            CpuSample after = CpuSample.take(processes, masters, services.cluster::connectTo);
            Map<String, Map<String, Long>> lanesAfter = chargesPerLane(services.jdbi, queues);
            List<Long> completedAfter = completedPerWorker(workers);
            long commits = commits(services.jdbi) - commitsBefore;
            feeder.stop();
            feeding.join();
            feeder.throwIfFailed();
            awaitDrained(services.jdbi, queues, feeder.submitted());
            long lost = feeder.submitted();
            long duplicates = 0;
            for (String q : queues) {
                LedgerSummary ledger = LedgerSummary.of(services.jdbi, q);
                lost -= ledger.distinctJobs();
                duplicates += ledger.duplicates();
            }
            String effectStore = effectRowSize(services.jdbi);
            forgetEffectsAndCharges(services.jdbi);
            return new Window(queues, lanes, before, after, lanesBefore, lanesAfter, workers.stream().map(WorkerJvm::pid).toList(),
                    completedBefore, completedAfter, commits, feeder.unavailable.get(), lost, duplicates, effectStore);
        } finally {
            for (WorkerJvm worker : workers) {
                worker.close();
            }
        }
    }

    /**
     * The warm-up before a window of {@code instances} workers. With {@link #warmupPerInstance} it
     * grows with them: at a fixed rate each of N instances runs a job 1/N as often, so it reaches
     * the JIT's thresholds later, and N times the warm-up gives each JVM the jobs one instance had
     * before its window. Minutes of it are needed before worker CPU per job compares settled JVMs:
     * at 2,000 jobs/s a JVM was still compiling hot methods with C2 three minutes in, and ran them
     * slower until then; {@code -Dbench.warmup-s=240} settles them (docs/SCALING.md, "Equal jobs
     * before the window").
     */
    private Duration warmupOf(int instances) {
        return warmupPerInstance ? warmup.multipliedBy(instances) : warmup;
    }

    /** Starts {@code instances} worker JVMs into {@code workers} (so the caller closes those started if one fails) and waits until each runs. */
    private void startWorkers(Services services, List<String> queues, int instances, Map<String, String> settings,
            List<WorkerJvm> workers) throws Exception {
        long startDeadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        Path logs = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "scaling"));
        for (int i = 0; i < instances; i++) {
            workers.add(WorkerJvm.start(services.cluster, services.database, queues, concurrency, settings,
                    logs.resolve(queues.get(0) + "-worker-" + i + ".log")));
        }
        for (WorkerJvm worker : workers) {
            worker.awaitStarted(startDeadline);
        }
    }

    /**
     * What one run saw: CPU, the ledger's rows per lane and each worker's completions at both ends
     * of the steady window (workers in start order), and, once drained, the jobs lost or applied twice.
     */
    private record Window(List<String> queues, int lanes, CpuSample before, CpuSample after, Map<String, Map<String, Long>> lanesBefore,
                          Map<String, Map<String, Long>> lanesAfter, List<Long> workerPids, List<Long> completedBefore,
                          List<Long> completedAfter, long commits, long unavailable, long lost, long duplicates, String effectRowSize) {

        long jobs() {
            return total(lanesAfter) - total(lanesBefore);
        }

        double seconds() {
            return after.wallSeconds(before);
        }

        /** The least fair queue's lane fairness. */
        double laneFairness() {
            return queues.stream().mapToDouble(q -> leastOverMost(lanesBefore.get(q), lanesAfter.get(q), lanes)).min().orElse(0);
        }
    }


    /** Where a feeder sends: a queue's pending count and its batch submission. */
    private interface FeedTarget {
        long pending(String queue);

        /** {@code jobs} as batches that each go to one shard, so that each is sent (or sent again) whole. */
        default List<List<NewJob>> byShard(List<NewJob> jobs) {
            return List.of(jobs);
        }

        /** One batch, all of whose jobs go to one shard. */
        void submit(String queue, List<NewJob> jobs);

        /** A queue of one shard, or many queues each of one shard. */
        static FeedTarget of(QueueClient queue) {
            return new FeedTarget() {
                @Override
                public long pending(String q) {
                    return queue.reads().stats(q).pending();
                }

                @Override
                public void submit(String q, List<NewJob> jobs) {
                    queue.submissions().enqueueBatch(q, jobs);
                }
            };
        }

        /** A sharded queue: a batch goes out as one batch per shard, each holding the jobs of that shard's lanes. */
        static FeedTarget of(ShardedQueue queue) {
            return new FeedTarget() {
                @Override
                public long pending(String q) {
                    return queue.reads().stats(q).pending();
                }

                @Override
                public List<List<NewJob>> byShard(List<NewJob> jobs) {
                    return List.copyOf(jobs.stream().collect(Collectors.groupingBy(job -> queue.layout().shardOfLane(job.lane().orElseThrow())))
                            .values());
                }

                @Override
                public void submit(String q, List<NewJob> jobs) {
                    queue.submissions().enqueueBatch(q, jobs);
                }
            };
        }
    }

    /**
     * Keeps each queue at {@link #BACKLOG_PER_QUEUE} pending jobs or more, every lane in turn, until
     * stopped: the workers never wait for work, and every lane always has some, so the window sees
     * the claim's round-robin over lanes that all have work. With a rate, it sends that many jobs per
     * second instead, spread evenly over the queues and lanes, paced by the time since it started (a
     * late round sends what it owes).
     */
    private static final class Feeder implements Runnable {

        private final FeedTarget target;
        private final List<String> queues;
        private final int lanes;
        private final AtomicLong submitted = new AtomicLong();
        /** Batches Valkey refused (and that were sent again): the cluster was down for a moment. */
        private final AtomicLong unavailable = new AtomicLong();
        private volatile boolean stopped;
        private volatile RuntimeException failure;
        private long sequence;
        /** Jobs/s over every queue; 0 for the backlog. */
        private final int rate;

        Feeder(FeedTarget target, List<String> queues, int lanes, int rate) {
            this.target = target;
            this.queues = queues;
            this.lanes = lanes;
            this.rate = rate;
        }

        @Override
        public void run() {
            try {
                feed();
            } catch (RuntimeException e) {
                // A batch whose outcome is unknown leaves the count of jobs to find unknown: the run is void.
                failure = e;
            }
        }

        private void feed() {
            long start = System.nanoTime();
            while (!stopped) {
                long owed = rate == 0 ? 0 : owedPerQueue(start);
                for (String q : queues) {
                    send(q, rate == 0 ? BACKLOG_PER_QUEUE - pendingOrFull(q) : owed);
                }
                try {
                    Thread.sleep(FEED_EVERY.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /** What each queue is owed at the fixed rate since {@code start}, less what was sent to it (every queue is sent the same). */
        private long owedPerQueue(long start) {
            double seconds = (System.nanoTime() - start) / 1e9;
            return (long) (seconds * rate / queues.size()) - submitted.get() / queues.size();
        }

        private void send(String q, long jobs) {
            for (long sent = 0; sent < jobs; sent += Submissions.MAX_BATCH_JOBS) {
                int size = (int) Math.min(Submissions.MAX_BATCH_JOBS, jobs - sent);
                for (List<NewJob> ofShard : target.byShard(jobs(size))) {
                    sendUntilServed(q, ofShard);
                }
                submitted.addAndGet(size);
            }
        }

        /** The queue's pending jobs; while Valkey cannot answer, the backlog (so nothing is sent to it this round). */
        private long pendingOrFull(String q) {
            try {
                return target.pending(q);
            } catch (QueueUnavailableException e) {
                unavailable.incrementAndGet();
                return BACKLOG_PER_QUEUE;
            }
        }

        /**
         * One batch, sent again while Valkey answers that it cannot serve it (nothing ran: a
         * cluster that a starved node marked down for a moment), so the count stays exact.
         */
        private void sendUntilServed(String q, List<NewJob> batch) {
            while (true) {
                try {
                    target.submit(q, batch);
                    return;
                } catch (QueueOutcomeUnknownException e) {
                    // It may have run: sending it again could make its jobs twice.
                    throw e;
                } catch (QueueUnavailableException e) {
                    unavailable.incrementAndGet();
                    try {
                        Thread.sleep(UNAVAILABLE_PAUSE.toMillis());
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        throw e;
                    }
                }
            }
        }

        private List<NewJob> jobs(int size) {
            List<NewJob> jobs = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                String lane = "lane-" + (sequence++ % lanes);
                jobs.add(NewJob.of("{\"account\":\"" + lane + "\",\"amountCents\":1}").inLane(lane));
            }
            return jobs;
        }

        void stop() {
            stopped = true;
        }

        void throwIfFailed() {
            if (failure != null) {
                throw new IllegalStateException("the feeder stopped, so this run cannot count its jobs: " + failure, failure);
            }
        }

        long submitted() {
            return submitted.get();
        }
    }

    private static void awaitDrained(Jdbi jdbi, List<String> queues, long submitted) throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_DEADLINE.toNanos();
        while (total(chargesPerLane(jdbi, queues)) < submitted && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    private static List<Long> completedPerWorker(List<WorkerJvm> workers) throws java.io.IOException {
        List<Long> completed = new ArrayList<>();
        for (WorkerJvm worker : workers) {
            completed.add(worker.completed());
        }
        return completed;
    }

    private static long total(Map<String, Map<String, Long>> perLane) {
        return perLane.values().stream().flatMap(m -> m.values().stream()).mapToLong(Long::longValue).sum();
    }

    /**
     * What each process is: the worker JVMs, the six cluster nodes, this JVM (the submitter), and
     * the PostgreSQL backends serving the benchmark's database (the workers' pooled connections).
     */
    private static Map<Long, String> processesToMeasure(ValkeyCluster cluster, List<WorkerJvm> workers, Jdbi jdbi) {
        Map<Long, String> kinds = new HashMap<>();
        workers.forEach(w -> kinds.put(w.pid(), "worker"));
        cluster.nodes().forEach(node -> kinds.put(cluster.pidOf(node.getPort()), "valkey"));
        kinds.put(ProcessHandle.current().pid(), "bench");
        jdbi.withHandle(h -> h.createQuery("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
                .mapTo(Long.class).list()).forEach(pid -> kinds.put(pid, "postgres"));
        return kinds;
    }

    /**
     * Transactions committed in the benchmark's database so far ({@code pg_stat_database}, which a
     * backend brings up to date within about a second): with a batch handler, one per batch of
     * effects, so jobs per commit is the batch the workers' claims made.
     */
    private static long commits(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
                .mapTo(Long.class).one());
    }

    /** Ledger rows per queue and lane (the demo account is named after the lane). */
    private static Map<String, Map<String, Long>> chargesPerLane(Jdbi jdbi, List<String> queues) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT queue, account, count(*) AS n FROM echomq.demo_ledger
                        WHERE queue IN (<queues>) GROUP BY queue, account""")
                .bindList("queues", queues)
                .reduceRows(new HashMap<String, Map<String, Long>>(), (map, row) -> {
                    map.computeIfAbsent(row.getColumn("queue", String.class), q -> new HashMap<>())
                            .put(row.getColumn("account", String.class), row.getColumn("n", Long.class));
                    return map;
                }));
    }

    /**
     * Empties the effect store and the ledger once a run is counted, so that every run starts on
     * tables of the same size: runs on ever larger tables measured the tables' growth.
     */
    private static void forgetEffectsAndCharges(Jdbi jdbi) {
        jdbi.useHandle(h -> h.execute("TRUNCATE echomq.effect, echomq.demo_ledger"));
    }

    /**
     * What the effect store costs per job on disk (tables, primary keys and age indexes), for sizing
     * PostgreSQL. Summed over the partitions, as the soak sums them: a partitioned table's own size is 0.
     */
    private static String effectRowSize(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT (SELECT count(*) FROM echomq.effect) AS n,
                               (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('echomq.effect')) AS bytes""")
                .map((rs, ctx) -> String.format("effect store: %d rows, %d bytes with indexes, %.0f bytes per job%n",
                        rs.getLong("n"), rs.getLong("bytes"), (double) rs.getLong("bytes") / Math.max(1, rs.getLong("n"))))
                .one());
    }

    /** The least served lane's completions between the two readings over the most served one's. */
    private static double leastOverMost(Map<String, Long> before, Map<String, Long> after, int lanes) {
        if (after == null || after.size() < lanes) {
            return 0;   // a lane not served at all
        }
        Map<String, Long> none = Map.of();
        List<Long> served = after.entrySet().stream()
                .map(e -> e.getValue() - (before == null ? none : before).getOrDefault(e.getKey(), 0L)).toList();
        long least = served.stream().mapToLong(Long::longValue).min().orElse(0);
        long most = served.stream().mapToLong(Long::longValue).max().orElse(1);
        return most == 0 ? 0 : (double) least / most;
    }

    private String table(List<Row> rows) {
        StringBuilder out = new StringBuilder("\nscaling: " + QUEUES + " queues on 3 masters x " + LANES + " lanes, demo ledger handler, "
                + Runtime.getRuntime().availableProcessors() + " cores, concurrency " + concurrency + " per queue and instance, "
                + (rate == 0 ? "a backlog of " + BACKLOG_PER_QUEUE + " per queue" : "fed " + rate + " jobs/s") + ", warm-up "
                + warmup.toSeconds() + " s" + (warmupPerInstance ? " per instance" : "") + " excluded, steady window " + steady.toSeconds() + " s\n");
        out.append(String.format("%-9s | %6s | %6s | %7s | %6s | %4s | %4s | %9s | %-17s | %-17s | %9s | %9s | %8s | %5s | %7s | %13s | %13s | %13s | %11s | %11s%n",
                "instances", "repeat", "jobs", "seconds", "jobs/s", "dups", "lost", "lane_fair", "jobs per instance",
                "cpu% per worker", "valkey%", "nodes%", "postgres%", "bench%", "machine%", "worker cpu-ms/job", "valkey cpu-ms/job",
                "worker w/o JIT", "scripts/job", "jobs/commit"));
        for (Row r : rows) {
            out.append(String.format("%-9d | %6d | %6d | %7.1f | %6.0f | %4d | %4d | %9.2f | %-17s | %-17s | %9.0f | %9.0f | %8.0f | %5.0f | %7.0f | %13.3f | %13.3f | %13.3f | %11.3f | %11.1f%n",
                    r.instances, r.repeat, r.jobs, r.seconds, r.jobsPerSecond(), r.duplicates, r.lost, r.laneFairness, percents(r.shares),
                    percents(r.workerCpu), r.valkeyInfoCpu, r.redisServerCpu, r.postgresCpu, r.benchCpu, r.machineCpu,
                    r.workerCpuMillisPerJob(), r.cpuMillisPerJob(r.valkeyInfoCpu), r.workerCpuMillisPerJobWithoutJit(), (double) r.valkeyScriptCalls / Math.max(1, r.jobs),
                    (double) r.jobs / Math.max(1, r.postgresCommits)));
        }
        for (Row r : rows) {
            out.append(String.format("worker threads, %d instance(s), repeat %d, %% of one core over all instances: %s%n", r.instances,
                    r.repeat, busiestThreads(r.workerThreads)));
        }
        out.append("jobs, seconds, cpu: over the steady window; dups and lost: over every job the run submitted, drained after it. "
                + "cpu%: percent of one core (/proc/<pid>/stat utime+stime); valkey%: the masters' INFO cpu; "
                + "scripts/job: script calls the masters answered (INFO commandstats: claims, submissions, duties) per job; "
                + "jobs/commit: jobs per transaction committed in the benchmark's database (pg_stat_database: effect batches, duties, the benchmark's reads); "
                + "nodes%: the 6 node processes (/proc); postgres%: the backends of the benchmark's database; machine%: all cores (max ")
                .append(100 * Runtime.getRuntime().availableProcessors()).append(")\n");
        return out.toString();
    }

    /** The kinds of thread that used at least 0.5 % of a core, busiest first: where a worker JVM's CPU goes. */
    private static String busiestThreads(Map<String, Double> percentByKind) {
        return percentByKind.entrySet().stream().filter(e -> e.getValue() >= 0.5)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> String.format("%s %.1f", e.getKey(), e.getValue())).collect(Collectors.joining(", "));
    }

    /** Per instance count: median and spread over the repeats, and worker CPU per job against one instance's median. */
    private String summary(List<Row> rows) {
        StringBuilder out = new StringBuilder(String.format("%nscaling summary over %d repeat(s): median [min-max]%n", repeats));
        out.append(String.format("%-9s | %-22s | %-25s | %-24s | %-25s | %s%n", "instances", "jobs/s", "worker cpu-ms/job",
                "cpu-ms/job vs 1 instance", "without JIT", "without JIT vs 1 instance"));
        Double oneInstance = null;
        Double oneInstanceWithoutJit = null;
        for (int instances : instanceCounts) {
            List<Row> of = rows.stream().filter(r -> r.instances == instances).toList();
            Spread rate = Spread.of(of.stream().map(Row::jobsPerSecond).toList());
            Spread cpu = Spread.of(of.stream().map(Row::workerCpuMillisPerJob).toList());
            Spread withoutJit = Spread.of(of.stream().map(Row::workerCpuMillisPerJobWithoutJit).toList());
            if (instances == 1) {
                oneInstance = cpu.median();
                oneInstanceWithoutJit = withoutJit.median();
            }
            out.append(String.format("%-9d | %6.0f [%6.0f-%6.0f] | %7.3f [%7.3f-%7.3f] | %-24s | %7.3f [%7.3f-%7.3f] | %s%n", instances,
                    rate.median(), rate.min(), rate.max(), cpu.median(), cpu.min(), cpu.max(),
                    oneInstance == null ? "-" : String.format("%.2fx", cpu.median() / oneInstance),
                    withoutJit.median(), withoutJit.min(), withoutJit.max(),
                    oneInstanceWithoutJit == null ? "-" : String.format("%.2fx", withoutJit.median() / oneInstanceWithoutJit)));
        }
        return out.toString();
    }

    /** A figure over the repeats: its median and its range. */
    private record Spread(double median, double min, double max) {
        static Spread of(List<Double> values) {
            return new Spread(Stats.median(values), values.stream().mapToDouble(Double::doubleValue).min().orElse(0),
                    values.stream().mapToDouble(Double::doubleValue).max().orElse(0));
        }
    }

    private static String percents(List<Double> values) {
        return values.stream().map(v -> String.format("%.0f", v)).collect(Collectors.joining("/"));
    }

    private record Row(int instances, int repeat, long jobs, double seconds, long duplicates, long lost, double laneFairness,
                       List<Double> shares, List<Double> workerCpu, double workerJitCpu, Map<String, Double> workerThreads,
                       double valkeyInfoCpu, double redisServerCpu,
                       double postgresCpu, double benchCpu, double machineCpu, long valkeyScriptCalls, long postgresCommits) {

        double jobsPerSecond() {
            return jobs / seconds;
        }

        double workerCpuMillisPerJob() {
            return cpuMillisPerJob(workerCpu.stream().mapToDouble(Double::doubleValue).sum());
        }

        /** The workers' CPU per job without their JIT compiler threads: what a job costs once every JVM has compiled its code. */
        double workerCpuMillisPerJobWithoutJit() {
            return cpuMillisPerJob(workerCpu.stream().mapToDouble(Double::doubleValue).sum() - workerJitCpu);
        }

        /** CPU milliseconds one job cost, from a percent of one core held over the window. */
        double cpuMillisPerJob(double percentOfOneCore) {
            return percentOfOneCore / 100 * seconds * 1000 / Math.max(1, jobs);
        }
    }
}
