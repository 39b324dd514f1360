package io.echomq.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.engine.EngineAssembly;
import io.echomq.engine.EngineThreads;
import io.echomq.maintenance.Maintenance;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.outbox.Outbox;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.shard.QueueShards;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.RedisClient;

/**
 * What idle engines cost Valkey, and how long the first job after an idle spell waits: N engines
 * (each a worker of the default settings and the queue's maintenance, as a server runs them)
 * serve one empty queue; the commands Valkey processed over a stretch of idle seconds
 * ({@code total_commands_processed} of {@code INFO stats}) per second, then single jobs sent
 * after idle spells, enqueue → effect committed. The queue may be laid out over shards (on the
 * one Valkey: each shard's scripts on its own hash tag, as on a cluster). Not part of {@code bench/run}:
 * {@code java -cp … io.echomq.bench.IdleInstances [instances,…] [idle seconds] [first jobs] [shards]}.
 */
public final class IdleInstances {

    private static final List<Logger> QUIETED = List.of(Logger.getLogger("com.zaxxer.hikari"), Logger.getLogger("io.echomq"),
            Logger.getLogger("org.flywaydb"));

    private IdleInstances() {
    }

    public static void main(String[] args) throws Exception {
        QUIETED.forEach(l -> l.setLevel(Level.WARNING));
        List<Integer> counts = args.length > 0 ? java.util.Arrays.stream(args[0].split(",")).map(Integer::parseInt).toList() : List.of(1, 3);
        int idleSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int firstJobs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int shards = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        Servers servers = Servers.start();
        for (int n : counts) {
            measure(servers, n, idleSeconds, firstJobs, shards);
        }
        System.exit(0);
    }

    private static void measure(Servers servers, int instances, int idleSeconds, int firstJobs, int shards) throws Exception {
        String queueName = "idle-" + instances + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        LinkedBlockingQueue<Long> committedAt = new LinkedBlockingQueue<>();
        List<AutoCloseable> closing = new ArrayList<>();
        RedisClient probe = servers.newRedis();
        closing.add(probe);
        QueueShards submitter = QueueShards.connect(probe, QueueClient.connect(probe, QueueSettings.DEFAULT), ReplicaWait.NONE,
                Map.of(queueName, shards));
        try {
            for (int i = 0; i < instances; i++) {
                closing.add(startEngine(servers, queueName, shards, "idle-" + i, committedAt));
            }
            // Past the worker's idle back-off and the maintenance's first passes.
            Thread.sleep(3_000);
            long before = commands(probe);
            Map<String, Long> callsBefore = calls(probe);
            long start = System.nanoTime();
            Thread.sleep(idleSeconds * 1_000L);
            double seconds = (System.nanoTime() - start) / 1e9;
            double perSecond = (commands(probe) - before) / seconds;
            Map<String, Long> callsAfter = calls(probe);
            StringBuilder byCommand = new StringBuilder();
            callsAfter.entrySet().stream()
                    .map(e -> Map.entry(e.getKey(), e.getValue() - callsBefore.getOrDefault(e.getKey(), 0L)))
                    .filter(e -> e.getValue() > 0)
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> byCommand.append(String.format(Locale.ROOT, " %s %.1f/s", e.getKey(), e.getValue() / seconds)));
            System.out.println("idle: " + instances + " instance(s), " + shards + " shard(s), calls by command (scripts' own calls included):" + byCommand);
            List<Double> firstJobMillis = new ArrayList<>();
            for (int j = 0; j < firstJobs; j++) {
                Thread.sleep(2_000);
                submitter.enqueue(queueName, NewJob.of(Workload.timedCharge(j)));
                Long at = committedAt.poll(30, TimeUnit.SECONDS);
                if (at == null) {
                    throw new IllegalStateException(queueName + ": a job sent after an idle spell did not commit in 30 s");
                }
                firstJobMillis.add(at / 1e6);
            }
            System.out.printf(Locale.ROOT, "idle: %d instance(s), %d shard(s): %.1f Valkey commands/s over %d idle seconds; first job "
                    + "after 2 s idle, enqueue → effect ms: %s (median %.1f)%n", instances, shards, perSecond, idleSeconds,
                    firstJobMillis.stream().map(v -> String.format(Locale.ROOT, "%.1f", v)).toList(), Stats.median(firstJobMillis));
        } finally {
            for (int i = closing.size() - 1; i >= 0; i--) {
                closing.get(i).close();
            }
        }
    }

    private static long commands(RedisClient probe) {
        Map<String, String> stats = ValkeyInfo.fields(probe.info("stats"));
        // The probe's own INFO is one command each time; the difference counts one of them.
        return Long.parseLong(stats.get("total_commands_processed"));
    }

    /** Calls of each command so far, from {@code INFO commandstats} (a script's own calls count under their commands). */
    private static Map<String, Long> calls(RedisClient probe) {
        Map<String, Long> calls = new java.util.HashMap<>();
        for (String line : probe.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String count = line.substring(line.indexOf("calls=") + 6);
                calls.put(name, Long.parseLong(count.substring(0, count.indexOf(','))));
            }
        }
        return calls;
    }

    /**
     * One engine as a server runs it (the queue laid out over {@code shards} as {@code RunningEngine} lays it out): a worker of
     * the default settings on the queue, and the queue's maintenance.
     */
    private static AutoCloseable startEngine(Servers servers, String queueName, int shards, String id, LinkedBlockingQueue<Long> committedAt) {
        RedisClient redis = servers.newRedis();
        QueueShards queue = QueueShards.connect(redis, QueueClient.connect(redis, QueueSettings.DEFAULT), ReplicaWait.NONE,
                Map.of(queueName, shards));
        HikariDataSource pool = servers.pool(queueName + "-" + id, WorkerSettings.DEFAULT.concurrency() + 2);
        EffectStore effects = new EffectStore(Jdbi.create(pool), EffectSettings.DEFAULT);
        ExecutorService threads = Executors.newCachedThreadPool();
        EngineThreads engineThreads = EngineThreads.from(threads, EngineThreads.daemonThreads("idle-timers-" + id));
        EngineAssembly engine = new EngineAssembly(queue, effects, Outbox.NONE, engineThreads, id, new WorkerListener() {
            @Override
            public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
                committedAt.add(System.nanoTime() - Workload.sentNanos(job.payload()));
            }
        }, MaintenanceListener.NONE);
        engine.startWorker(queueName, new LedgerChargeHandler(), WorkerSettings.DEFAULT);
        engine.startMaintenance(List.of(queueName), Maintenance.Settings.DEFAULT);
        return () -> {
            engine.stop(Duration.ofSeconds(5));
            threads.shutdownNow();
            engineThreads.close();
            pool.close();
            redis.close();
        };
    }
}
