package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.Migrations;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.Submissions;
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
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * 1, 2 and 3 app servers (standalone worker JVMs) on one set of queues of a real Valkey Cluster:
 * three queues on three different masters, four lanes each, the demo ledger handler writing to
 * PostgreSQL. Per configuration it prints jobs/s, each worker's CPU, Valkey's own CPU
 * ({@code INFO cpu}), PostgreSQL's, the machine's, the share of jobs each instance completed, and
 * lane fairness: at half of the run, the least served lane's completions over the most served
 * one's (1.00 = equal), the lanes having been submitted one after another, so FIFO would score 0.
 * Every lane is loaded while the queues are paused and the workers already wait on them; the
 * measurement starts when the queues resume, so it sees the claim's round-robin over lanes that
 * all have work, not the submitter racing the workers.
 *
 * <p>Run: {@code mvn -q -Pbench -pl bench/scaling -am verify -Dtest=ScalingBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -Dbench.instances=1,2,3},
 * {@code -Dbench.jobs-per-lane=500}, {@code -Dbench.concurrency=4}).
 */
class ScalingBenchmark {

    private static final int QUEUES = 3;
    private static final int LANES = 4;
    private static final Duration DEADLINE = Duration.ofMinutes(5);

    private final List<Integer> instanceCounts = Arrays.stream(System.getProperty("bench.instances", "1,2,3").split(","))
            .map(String::strip).map(Integer::parseInt).toList();
    private final int jobsPerLane = Integer.getInteger("bench.jobs-per-lane", 500);
    private final int concurrency = Integer.getInteger("bench.concurrency", 4);

    @Test
    void severalAppServersShareTheQueuesWithoutDuplicatesAndWithFairLanes() throws Exception {
        PostgresService.Database database = RealServices.postgres().createDatabase("scaling");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        Jdbi jdbi = Jdbi.create(database.dataSource());
        List<Row> rows = new ArrayList<>();
        try (ValkeyCluster cluster = ValkeyCluster.start(); RedisClusterClient redis = cluster.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            for (int instances : instanceCounts) {
                rows.add(measure(instances, cluster, queue, database, jdbi));
            }
        }
        System.out.println(table(rows) + effectRowSize(jdbi));
        for (Row row : rows) {
            assertThat(row.duplicates).as("duplicates with %d instances", row.instances).isZero();
            assertThat(row.lost).as("lost with %d instances", row.instances).isZero();
            assertThat(row.laneFairness).as("lane fairness with %d instances", row.instances).isGreaterThan(0.8);
        }
    }

    private Row measure(int instances, ValkeyCluster cluster, QueueClient queue, PostgresService.Database database, Jdbi jdbi)
            throws Exception {
        List<String> queues = cluster.hashTagsOnDistinctMasters("scale" + instances + "-" + System.nanoTime(), QUEUES);
        int jobs = QUEUES * LANES * jobsPerLane;
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        Path logs = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "scaling"));
        List<WorkerJvm> workers = new ArrayList<>();
        try {
            for (int i = 0; i < instances; i++) {
                workers.add(WorkerJvm.start(cluster, database, queues, concurrency, logs.resolve(queues.get(0) + "-worker-" + i + ".log")));
            }
            for (WorkerJvm worker : workers) {
                worker.awaitStarted(deadline);
            }
            List<Integer> masters = cluster.masterPorts();
            Map<Long, String> processes = processesToMeasure(cluster, workers, jdbi);
            queues.forEach(queue.admin()::pause);
            submitLaneAfterLane(queue, queues);
            CpuSample before = CpuSample.take(processes, masters, cluster::connectTo);
            queues.forEach(queue.admin()::resume);
            double fairness = 1.0;
            boolean halfSeen = false;
            long completed = 0;
            while (completed < jobs && System.nanoTime() < deadline) {
                Thread.sleep(200);
                Map<String, Map<String, Long>> perLane = chargesPerLane(jdbi, queues);
                completed = perLane.values().stream().flatMap(m -> m.values().stream()).mapToLong(Long::longValue).sum();
                if (!halfSeen && completed >= jobs / 2) {
                    halfSeen = true;
                    fairness = perLane.values().stream().mapToDouble(ScalingBenchmark::leastOverMost).min().orElse(0);
                }
            }
            CpuSample after = CpuSample.take(processes, masters, cluster::connectTo);
            long lost = jobs;
            long duplicates = 0;
            for (String q : queues) {
                LedgerSummary ledger = LedgerSummary.of(jdbi, q);
                lost -= ledger.distinctJobs();
                duplicates += ledger.duplicates();
            }
            List<Double> shares = new ArrayList<>();
            for (WorkerJvm worker : workers) {
                shares.add(100.0 * worker.completed() / Math.max(1, completed));
            }
            List<Double> workerCpu = workers.stream().map(w -> after.percentByPid(before, "worker").getOrDefault(w.pid(), 0.0)).toList();
            return new Row(instances, jobs, after.wallSeconds(before), duplicates, lost, fairness, shares, workerCpu,
                    after.valkeyPercent(before), after.percentOfKind(before, "valkey"), after.percentOfKind(before, "postgres"),
                    after.percentOfKind(before, "bench"), after.machinePercent(before));
        } finally {
            for (WorkerJvm worker : workers) {
                worker.close();
            }
        }
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
     * Every queue gets lane-0's jobs first, then lane-1's, ...: a FIFO queue would serve the lanes
     * one after another. The queues are paused meanwhile, so every lane is loaded before a worker
     * claims (the worker drains faster than one submitter loads: submitting into a running queue
     * measured the submitter, lane 0 half done before lane 3 existed).
     */
    private void submitLaneAfterLane(QueueClient queue, List<String> queues) {
        for (int lane = 0; lane < LANES; lane++) {
            String laneName = "lane-" + lane;
            List<NewJob> batch = IntStream.range(0, jobsPerLane)
                    .mapToObj(i -> NewJob.of("{\"account\":\"" + laneName + "\",\"amountCents\":1}").inLane(laneName)).toList();
            for (String q : queues) {
                for (int from = 0; from < batch.size(); from += Submissions.MAX_BATCH_JOBS) {
                    queue.submissions().enqueueBatch(q, batch.subList(from, Math.min(batch.size(), from + Submissions.MAX_BATCH_JOBS)));
                }
            }
        }
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

    /** What the effect store costs per job on disk (table, primary key and age index), for sizing PostgreSQL. */
    private static String effectRowSize(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT count(*) AS n, pg_total_relation_size('echomq.effect') AS bytes FROM echomq.effect""")
                .map((rs, ctx) -> String.format("effect store: %d rows, %d bytes with indexes, %.0f bytes per job%n",
                        rs.getLong("n"), rs.getLong("bytes"), (double) rs.getLong("bytes") / Math.max(1, rs.getLong("n"))))
                .one());
    }

    private static double leastOverMost(Map<String, Long> perLane) {
        if (perLane.size() < LANES) {
            return 0;   // a lane not served at all by half time
        }
        long least = perLane.values().stream().mapToLong(Long::longValue).min().orElse(0);
        long most = perLane.values().stream().mapToLong(Long::longValue).max().orElse(1);
        return (double) least / most;
    }

    private static String table(List<Row> rows) {
        StringBuilder out = new StringBuilder("\nscaling: " + QUEUES + " queues on 3 masters x " + LANES + " lanes, demo ledger handler, "
                + Runtime.getRuntime().availableProcessors() + " cores\n");
        out.append(String.format("%-9s | %5s | %7s | %6s | %4s | %4s | %9s | %-17s | %-17s | %9s | %9s | %8s | %5s | %7s | %13s | %13s%n",
                "instances", "jobs", "seconds", "jobs/s", "dups", "lost", "lane_fair", "jobs per instance",
                "cpu% per worker", "valkey%", "nodes%", "postgres%", "bench%", "machine%", "worker cpu-ms/job", "valkey cpu-ms/job"));
        for (Row r : rows) {
            double workerPercent = r.workerCpu.stream().mapToDouble(Double::doubleValue).sum();
            out.append(String.format("%-9d | %5d | %7.1f | %6.0f | %4d | %4d | %9.2f | %-17s | %-17s | %9.0f | %9.0f | %8.0f | %5.0f | %7.0f | %13.2f | %13.2f%n",
                    r.instances, r.jobs, r.seconds, r.jobs / r.seconds, r.duplicates, r.lost, r.laneFairness, percents(r.shares),
                    percents(r.workerCpu), r.valkeyInfoCpu, r.redisServerCpu, r.postgresCpu, r.benchCpu, r.machineCpu,
                    cpuMillisPerJob(workerPercent, r), cpuMillisPerJob(r.valkeyInfoCpu, r)));
        }
        out.append("cpu%: percent of one core over the run (/proc/<pid>/stat utime+stime); valkey%: the masters' INFO cpu; "
                + "nodes%: the 6 node processes (/proc); postgres%: the backends of the benchmark's database; machine%: all cores (max ").append(100 * Runtime.getRuntime().availableProcessors())
                .append(")\n");
        return out.toString();
    }

    /** CPU milliseconds one job cost, from a percent of one core held over the run. */
    private static double cpuMillisPerJob(double percentOfOneCore, Row r) {
        return percentOfOneCore / 100 * r.seconds * 1000 / r.jobs;
    }

    private static String percents(List<Double> values) {
        return values.stream().map(v -> String.format("%.0f", v)).collect(Collectors.joining("/"));
    }

    private record Row(int instances, int jobs, double seconds, long duplicates, long lost, double laneFairness, List<Double> shares,
                       List<Double> workerCpu, double valkeyInfoCpu, double redisServerCpu, double postgresCpu, double benchCpu,
                       double machineCpu) {
    }
}
