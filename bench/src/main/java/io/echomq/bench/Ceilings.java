package io.echomq.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.demo.Charge;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.handler.JobContext;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Lease;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.RedisClient;

/**
 * What the machine can do without us in the way: the same PostgreSQL transaction with no
 * queue (through our effect store, and through pgbench with the same SQL), and the queue's
 * scripts with no PostgreSQL.
 */
final class Ceilings {

    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final Pattern PGBENCH_TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");
    private static final Pattern PGBENCH_PROCESSED = Pattern.compile("number of transactions actually processed: ([0-9]+)");

    private final Servers servers;

    Ceilings(Servers servers) {
        this.servers = servers;
    }

    private static String freshQueue(String what, int concurrency) {
        return "ceiling-" + what + "-c" + concurrency + "-" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet();
    }

    /** The per-job mode's transaction, from {@code concurrency} threads, jobs taken from a counter instead of a queue. */
    Measurement postgresPerJob(int concurrency, int jobs) throws Exception {
        String queue = freshQueue("pg", concurrency);
        try (HikariDataSource pool = servers.pool(queue, concurrency + 2)) {
            EffectStore effects = new EffectStore(Jdbi.create(pool), EffectSettings.DEFAULT);
            AtomicLong next = new AtomicLong();
            return inParallel(concurrency, jobs, () -> {
                for (long id; (id = next.incrementAndGet()) <= jobs; ) {
                    String jobId = Long.toString(id);
                    Charge charge = Workload.chargeOf((int) id);
                    effects.apply(new Lease(queue, jobId, id, 1), tx -> LedgerChargeHandler.charge(tx, queue, jobId, 1, charge));
                }
            });
        }
    }

    /** The batched mode's transaction (batches of {@code batchSize}), with no queue. */
    Measurement postgresBatched(int concurrency, int jobs, int batchSize) throws Exception {
        String queue = freshQueue("pg-batched", concurrency);
        try (HikariDataSource pool = servers.pool(queue, concurrency + 2)) {
            EffectStore effects = new EffectStore(Jdbi.create(pool), EffectSettings.DEFAULT);
            LedgerChargeHandler handler = new LedgerChargeHandler();
            AtomicLong next = new AtomicLong();
            return inParallel(concurrency, jobs, () -> {
                for (long start; (start = next.getAndAdd(batchSize) + 1) <= jobs; ) {
                    long first = start;
                    List<Lease> leases = new ArrayList<>();
                    List<String> payloads = new ArrayList<>();
                    for (long id = first; id < first + batchSize && id <= jobs; id++) {
                        leases.add(new Lease(queue, Long.toString(id), id, 1));
                        payloads.add(Workload.charge((int) id));
                    }
                    effects.applyAll(leases, (tx, recorded) -> handler.handleBatch(recorded.stream()
                            .map(l -> new JobContext(queue, l.jobId(), l.jobCreatedMs(), 1, "default",
                                    payloads.get((int) (Long.parseLong(l.jobId()) - first)), tx))
                            .toList()));
                }
            });
        }
    }

    /**
     * The per-job transaction's SQL through pgbench ({@link PgbenchScript}: the engine's own
     * statements; -M prepared, one client per thread of ours), for {@code seconds}. Checked like
     * every contestant: each transaction pgbench counted left one effect row and one ledger row.
     */
    Measurement pgbench(int concurrency, int seconds) throws IOException, InterruptedException {
        String queue = freshQueue("pgbench", concurrency);
        String recordStatement = new EffectStore(Jdbi.create(servers.simpleDataSource()), EffectSettings.DEFAULT).recordOneStatement();
        Path script = Files.createTempFile("echomq-pgbench", ".sql");
        try {
            Files.writeString(script, PgbenchScript.of(recordStatement), StandardCharsets.UTF_8);
            var address = servers.jdbcAddress();
            ProcessBuilder builder = new ProcessBuilder("pgbench", "-n", "-M", "prepared", "-c", Integer.toString(concurrency),
                    "-j", Integer.toString(Math.min(concurrency, 2)), "-T", Integer.toString(seconds), "-f", script.toString(),
                    "-D", "queue=" + queue, "-h", address.getHost(), "-p", Integer.toString(address.getPort()),
                    "-U", servers.database.user(), servers.databaseName()).redirectErrorStream(true);
            builder.environment().put("PGPASSWORD", String.valueOf(servers.database.password()));
            Process pgbench = builder.start();
            String output = new String(pgbench.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!pgbench.waitFor(seconds + 60L, TimeUnit.SECONDS) || pgbench.exitValue() != 0) {
                throw new IllegalStateException("pgbench failed:\n" + output);
            }
            double rate = Double.parseDouble(match(PGBENCH_TPS, output));
            verifyPgbench(queue, Long.parseLong(match(PGBENCH_PROCESSED, output)));
            return Measurement.throughput((int) Math.round(rate * seconds), seconds);
        } finally {
            Files.deleteIfExists(script);
        }
    }

    private static String match(Pattern pattern, String pgbenchOutput) {
        Matcher m = pattern.matcher(pgbenchOutput);
        if (!m.find()) {
            throw new IllegalStateException("no '" + pattern + "' in pgbench output:\n" + pgbenchOutput);
        }
        return m.group(1);
    }

    /** Every transaction pgbench counted recorded its job's effect row and wrote its ledger row, once. */
    private void verifyPgbench(String queue, long transactions) {
        Jdbi jdbi = Jdbi.create(servers.simpleDataSource());
        long effectRows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.effect WHERE queue = :queue")
                .bind("queue", queue).mapTo(Long.class).one());
        LedgerSummary ledger = LedgerSummary.of(jdbi, queue);
        if (effectRows != transactions || ledger.distinctJobs() != transactions || ledger.duplicates() != 0) {
            throw new IllegalStateException("pgbench counted " + transactions + " transactions but left " + effectRows
                    + " effect rows and ledger " + ledger + " for " + queue);
        }
    }

    /** claim one + complete one from {@code concurrency} threads on a preloaded queue: the queue's per-job cost. */
    Measurement claimCompletePair(int concurrency, int jobs) throws Exception {
        String queueName = freshQueue("pair", concurrency);
        try (RedisClient redis = servers.newRedis()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            Workload.preload(queue, queueName, jobs);
            AtomicLong done = new AtomicLong();
            return servers.withValkeyCpu(() -> inParallel(concurrency, jobs, () -> {
                while (done.get() < jobs) {
                    List<ClaimedJob> claimed = queue.leases().claim(queueName, Duration.ofSeconds(30), 1, "ceiling");
                    if (claimed.isEmpty()) {
                        return;
                    }
                    queue.leases().complete(claimed.get(0).lease());
                    done.incrementAndGet();
                }
            }));
        }
    }

    /** Our fetch loop's call alone: complete-claim acknowledging the last {@code perCall} and leasing the next. */
    Measurement completeClaimFolded(int perCall, int jobs) throws Exception {
        String queueName = freshQueue("folded", perCall);
        try (RedisClient redis = servers.newRedis()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            Workload.preload(queue, queueName, jobs);
            return servers.withValkeyCpu(() -> inParallel(1, jobs, () -> {
                List<Lease> finished = List.of();
                while (true) {
                    List<ClaimedJob> claimed = queue.leases().completeAndClaim(queueName, finished, Duration.ofSeconds(30), perCall, "ceiling")
                            .claimed();
                    if (claimed.isEmpty()) {
                        return;
                    }
                    finished = claimed.stream().map(ClaimedJob::lease).toList();
                }
            }));
        }
    }

    private interface Task {
        void run() throws Exception;
    }

    private static Measurement inParallel(int threads, int jobs, Task task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            double cpu = Measurement.jvmCpuNow();
            long start = System.nanoTime();
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                running.add(pool.submit(() -> {
                    task.run();
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
            return Measurement.throughput(jobs, (System.nanoTime() - start) / 1e9, cpu);
        } finally {
            pool.shutdownNow();
        }
    }
}
