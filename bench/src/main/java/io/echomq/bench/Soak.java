package io.echomq.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.engine.EngineAssembly;
import io.echomq.engine.EngineThreads;
import io.echomq.handler.JobHandler;
import io.echomq.maintenance.Maintenance;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.maintenance.Pass;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.RedisClient;

/**
 * The soak: the engine under a steady open-loop load for a long time, as in production, with
 * the product's own maintenance (reaper, retention, reconciler, effect-row retention) and its
 * default retention bounds, sampling once a minute what must stay flat: Valkey's memory, the
 * completed set, the effect table's rows and bytes, the worker JVM's heap after a GC, and the
 * latency from send to effect. One run per mode (one transaction per job, and batched), each at
 * half the rate that mode drained at in a calibration run just before.
 *
 * <p>Only the effect-row retention age is shortened (to {@link #EFFECT_WINDOW} twice), so that
 * the effect table reaches its bound within the run; in production it is days.
 */
final class Soak {

    /** The idempotency window of the soak's effect store; the effect-row retention is twice it. */
    static final Duration EFFECT_WINDOW = Duration.ofMinutes(1);
    private static final Maintenance.Settings MAINTENANCE = Maintenance.Settings.DEFAULT.withEffectRetention(EFFECT_WINDOW.multipliedBy(2));
    private static final int CONCURRENCY = 4;
    private static final Duration SAMPLE_EVERY = Duration.ofMinutes(1);
    /** Minutes at the start that the flatness check leaves out: pools, JIT, retention's first rounds. */
    static final int SETTLING_MINUTES = 5;

    /** One minute of the run. */
    record Sample(int minute, ValkeyMemory valkey, long completedKept, long eventStreamEntries, long eventStreamBytes, long effectRows,
            long effectTableBytes, long heapAfterGcBytes, int jobsDone, double p50Millis, double p99Millis) {

        long valkeyBytes() {
            return valkey.usedBytes();
        }
    }

    private final Servers servers;
    private final int batchSize;

    Soak(Servers servers, int batchSize) {
        this.servers = servers;
        this.batchSize = batchSize;
    }

    /** Runs each mode for {@code minutes}; writes CSV, PNG and a Markdown section to {@code out}; returns the section. */
    String run(List<OurWorker.Mode> modes, int minutes, double perJobRate, double batchedRate, Path out) throws Exception {
        Files.createDirectories(out);
        StringBuilder section = new StringBuilder();
        for (OurWorker.Mode mode : modes) {
            double given = mode == OurWorker.Mode.PER_JOB ? perJobRate : batchedRate;
            double rate = given > 0 ? given : calibratedHalfRate(mode);
            System.err.printf(Locale.ROOT, "soak: %s at %.0f jobs/s for %d minutes%n", name(mode), rate, minutes);
            String file = "soak-" + name(mode);
            List<Sample> samples = soak(mode, rate, minutes, out.resolve(file + "-seconds.csv"), out.resolve(file + "-maintenance.csv"));
            writeCsv(out.resolve(file + ".csv"), samples);
            Files.write(out.resolve(file + "-valkey.csv"), valkeyLines(samples));
            SoakChart.write(out.resolve(file + ".png"), name(mode) + " at " + Math.round(rate) + " jobs/s", samples);
            section.append(report(mode, rate, minutes, samples, file));
        }
        return section.toString();
    }

    private static String name(OurWorker.Mode mode) {
        return mode == OurWorker.Mode.PER_JOB ? "per-job" : "batched";
    }

    /** The mode a name of {@link #name} stands for. */
    static OurWorker.Mode mode(String name) {
        for (OurWorker.Mode mode : OurWorker.Mode.values()) {
            if (name(mode).equals(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("--soak-mode: per-job or batched, not " + name);
    }

    /** Half of what the mode drains a preloaded queue at, at the soak's concurrency. */
    private double calibratedHalfRate(OurWorker.Mode mode) throws InterruptedException {
        int jobs = mode == OurWorker.Mode.PER_JOB ? 20_000 : 100_000;
        double best = new OurWorker(servers, batchSize).drain(mode, OurWorker.Effect.LEDGER, CONCURRENCY, jobs).jobsPerSecond();
        System.err.printf(Locale.ROOT, "soak: %s drained %d jobs at %.0f jobs/s%n", name(mode), jobs, best);
        return best / 2;
    }

    private List<Sample> soak(OurWorker.Mode mode, double rate, int minutes, Path secondsCsv, Path maintenanceCsv) throws Exception {
        String queueName = "soak-" + name(mode) + "-" + ProcessHandle.current().pid();
        // Each minute takes the interval's histogram and the recording goes on into a fresh one.
        Recorder latencies = new Recorder(3);
        AtomicReference<SoakSeconds> bySecond = new AtomicReference<>();
        WorkerListener timing = new WorkerListener() {
            @Override
            public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
                if (job.payload().contains("sentNanos")) {
                    long latency = System.nanoTime() - Workload.sentNanos(job.payload());
                    latencies.recordValue(latency);
                    bySecond.get().effect(latency);
                }
            }
        };
        ExecutorService runners = Executors.newCachedThreadPool();
        EngineThreads engineThreads = EngineThreads.from(runners, EngineThreads.daemonThreads("soak-timers"));
        List<Sample> samples = new ArrayList<>();
        try (RedisClient redis = servers.newRedis(); HikariDataSource pool = servers.pool(queueName, CONCURRENCY + 4);
                HeapAfterGc heap = HeapAfterGc.listening(took -> {
                    SoakSeconds perSecond = bySecond.get();
                    if (perSecond != null) {
                        perSecond.collection(took);
                    }
                })) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            Jdbi jdbi = Jdbi.create(pool);
            SoakSeconds seconds = new SoakSeconds(name(mode), rate, jdbi, secondsCsv, maintenanceCsv);
            bySecond.set(seconds);
            EffectSettings effects = new EffectSettings(EffectSettings.DEFAULT.lockTimeout(), EffectSettings.DEFAULT.idleInTransactionTimeout(),
                    EFFECT_WINDOW);
            EngineAssembly engine = new EngineAssembly(queue, new EffectStore(jdbi, effects), engineThreads, "soak",
                    timing, new MaintenanceListener() {
                        @Override
                        public void ran(String duty, String queue, Pass pass, Duration took) {
                            seconds.maintenanceRan(duty, pass.changes(), took);
                        }
                    });
            engine.startWorker(queueName, handler(mode), WorkerSettings.DEFAULT.withConcurrency(CONCURRENCY).withBatchSize(batchSize));
            engine.startMaintenance(List.of(queueName), MAINTENANCE);
            FutureTask<OpenLoop.Sent> producing = new FutureTask<>(
                    () -> OpenLoop.run(queue, queueName, rate, Integer.MAX_VALUE, 0, Duration.ofMinutes(minutes)));
            new Thread(producing, "soak-producer").start();
            seconds.start();
            long start = System.nanoTime();
            for (int minute = 1; minute <= minutes; minute++) {
                long due = start + SAMPLE_EVERY.toNanos() * minute;
                TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
                failIfStopped(producing, queueName);
                Percentiles latency = Percentiles.of(latencies.getIntervalHistogram());
                long sampling = System.nanoTime();
                samples.add(sample(minute, redis, queue, queueName, jdbi, heap, latency));
                Sample s = samples.get(samples.size() - 1);
                System.err.printf(Locale.ROOT, "soak: %s minute %d: valkey %.1f MB (data %.1f, clients %.1f, other overhead %.1f, "
                        + "%d keys), completed kept %d, job-event stream %d entries (%.1f MB), effect rows %d (%.1f MB), heap after GC %.1f MB, %d jobs, p50 %.1f ms, "
                        + "p99 %.1f ms (sampled in %.0f ms)%n", name(mode), minute, s.valkeyBytes() / 1e6, s.valkey().datasetBytes() / 1e6,
                        s.valkey().clientBytes() / 1e6, s.valkey().otherOverheadBytes() / 1e6, s.valkey().keys(), s.completedKept(),
                        s.eventStreamEntries(), s.eventStreamBytes() / 1e6, s.effectRows(), s.effectTableBytes() / 1e6, s.heapAfterGcBytes() / 1e6, s.jobsDone(), s.p50Millis(),
                        s.p99Millis(), (System.nanoTime() - sampling) / 1e6);
            }
            OpenLoop.Sent sent = producing.get();
            if (sent.unanswered() > 0) {
                System.err.printf(Locale.ROOT, "soak: %s sent %d jobs, %d of them in sends Valkey did not answer in time%n",
                        name(mode), sent.jobs(), sent.unanswered());
            }
            seconds.close();
            engine.stop(Duration.ofSeconds(30));
            LedgerSummary ledger = LedgerSummary.of(jdbi, queueName);
            if (ledger.duplicates() != 0) {
                throw new IllegalStateException(queueName + ": the soak applied an effect twice: " + ledger);
            }
        } finally {
            runners.shutdownNow();
            engineThreads.close();
        }
        return samples;
    }

    /** A producer that died must end the run: the minutes after it would measure an idle engine. */
    private static void failIfStopped(FutureTask<OpenLoop.Sent> producing, String queueName) throws InterruptedException {
        if (!producing.isDone()) {
            return;
        }
        try {
            producing.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(queueName + ": the soak's producer stopped offering load", e.getCause());
        }
    }

    private JobHandler handler(OurWorker.Mode mode) {
        LedgerChargeHandler ledger = new LedgerChargeHandler();
        return mode == OurWorker.Mode.PER_JOB ? ledger::handle : ledger;
    }

    /** A minute's latencies, reduced before the heap is measured so that they are not counted in it. */
    private record Percentiles(int count, double p50Millis, double p99Millis) {

        static Percentiles of(Histogram nanos) {
            return new Percentiles((int) nanos.getTotalCount(), Stats.millis(nanos, 50), Stats.millis(nanos, 99));
        }
    }

    private static Sample sample(int minute, RedisClient redis, QueueClient queue, String queueName, Jdbi jdbi, HeapAfterGc heap,
            Percentiles latency) throws InterruptedException {
        long effectRows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.effect WHERE queue = :q")
                .bind("q", queueName).mapTo(Long.class).one());
        // Summed over the partitions: a partitioned table's own size is 0.
        long effectBytes = jdbi.withHandle(h -> h.createQuery(
                "SELECT coalesce(sum(pg_total_relation_size(relid)), 0)::bigint FROM pg_partition_tree('echomq.effect')").mapTo(Long.class).one());
        // The key layout is the README's published one; the bench reads it as an operator would.
        Long streamBytes = redis.memoryUsage("echomq:{" + queueName + "}:events");
        return new Sample(minute, ValkeyMemory.of(redis), queue.reads().stats(queueName).completed(),
                queue.reads().eventStreamLength(queueName), streamBytes == null ? 0 : streamBytes, effectRows, effectBytes, heap.measure(),
                latency.count(), latency.p50Millis(), latency.p99Millis());
    }

    /** The most effect rows the table may hold at {@code rate}: each lives at most the maintenance's effect-row lifetime. */
    static long effectRowBound(double rate) {
        return Math.round(rate * MAINTENANCE.effectRowLifetime().toMillis() / 1000.0);
    }

    private static void writeCsv(Path csv, List<Sample> samples) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("minute,valkey_bytes,completed_kept,event_stream_entries,event_stream_bytes,effect_rows,effect_table_bytes,"
                + "heap_after_gc_bytes,jobs,p50_ms,p99_ms");
        for (Sample s : samples) {
            lines.add(String.format(Locale.ROOT, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%.2f,%.2f", s.minute(), s.valkeyBytes(), s.completedKept(),
                    s.eventStreamEntries(), s.eventStreamBytes(), s.effectRows(), s.effectTableBytes(), s.heapAfterGcBytes(), s.jobsDone(), s.p50Millis(), s.p99Millis()));
        }
        Files.write(csv, lines);
    }

    private static List<String> valkeyLines(List<Sample> samples) {
        List<String> lines = new ArrayList<>(List.of(ValkeyMemory.CSV_HEADER));
        samples.forEach(s -> lines.add(s.valkey().csvLine(s.minute())));
        return lines;
    }

    /** The section of one mode: the samples, and the verdict against the flatness targets. */
    private static String report(OurWorker.Mode mode, double rate, int minutes, List<Sample> samples, String file) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%n### %s at %.0f jobs/s, %d minutes ([CSV](%s.csv), ![plot](%s.png))%n%n", name(mode), rate,
                minutes, file, file));
        md.append("| minute | Valkey MB | completed kept | event stream entries | event stream MB | effect rows | effect table MB "
                + "| heap after GC MB | jobs | p50 ms | p99 ms |\n");
        md.append("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (Sample s : samples) {
            md.append(String.format(Locale.ROOT, "| %d | %.1f | %d | %d | %.1f | %d | %.1f | %.1f | %d | %.1f | %.1f |%n", s.minute(),
                    s.valkeyBytes() / 1e6, s.completedKept(), s.eventStreamEntries(), s.eventStreamBytes() / 1e6, s.effectRows(), s.effectTableBytes() / 1e6, s.heapAfterGcBytes() / 1e6, s.jobsDone(),
                    s.p50Millis(), s.p99Millis()));
        }
        md.append('\n').append(SoakVerdict.of(samples, effectRowBound(rate))).append('\n');
        return md.toString();
    }
}
