package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Enqueued;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.queue.shard.ShardedQueue;
import io.echomq.testkit.services.ValkeyCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * What an idempotency key costs a submission on a sharded queue (docs/SHARDING.md, 3.1 and 9.2):
 * a key whose owner shard is the job's lane shard (every key of a queue of one shard, every
 * laneless job) is checked in the one enqueue script; any other takes the key homes' slow path,
 * a reservation on the owner, the enqueue on the lane's shard and a confirmation on the owner.
 * Four shapes side by side on the 3-master cluster, each on a fresh queue, repeats interleaved:
 * keyed jobs in lanes on a queue of one shard (the baseline), jobs in lanes without a key on a
 * queue of three shards, keyed laneless jobs on three shards (always the fast path) and keyed jobs
 * in lanes on three shards (the slow path for the keys another shard owns, about two in three).
 * Each shape: {@code bench.keyed-threads} submitters sending one job per call for a warm-up, then
 * a window: jobs/s, latency p50/p99, the masters' script calls per job ({@code INFO commandstats})
 * and Valkey's CPU per job. Then the first keys of each shape are sent again, from their lane
 * and (slow path) from a lane of another shard: each must answer its first job.
 *
 * <p>Run: {@code mvn -q -Pbench -pl bench/scaling -am verify -Dtest=KeyedSubmissionBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -Dbench.repeats=3}, {@code -Dbench.keyed-threads=4},
 * {@code -Dbench.keyed-warmup-s=3}, {@code -Dbench.keyed-seconds=10}).
 */
class KeyedSubmissionBenchmark {

    private static final int LANES = 12;
    private static final int RESENT = 200;

    private final int repeats = Integer.getInteger("bench.repeats", 3);
    private final int threads = Integer.getInteger("bench.keyed-threads", 4);
    private final Duration warmup = Duration.ofSeconds(Integer.getInteger("bench.keyed-warmup-s", 3));
    private final Duration window = Duration.ofSeconds(Integer.getInteger("bench.keyed-seconds", 10));

    /** One way of submitting: the queue's layout, and what each submitted job carries. */
    private enum Shape {
        ONE_SHARD_KEYED_LANES("1 shard, keyed, in lanes", 1, true, true),
        THREE_SHARDS_UNKEYED_LANES("3 shards, no key, in lanes", 3, false, true),
        THREE_SHARDS_KEYED_LANELESS("3 shards, keyed, laneless", 3, true, false),
        THREE_SHARDS_KEYED_LANES("3 shards, keyed, in lanes", 3, true, true);

        final String label;
        final int shards;
        final boolean keyed;
        final boolean inLanes;

        Shape(String label, int shards, boolean keyed, boolean inLanes) {
            this.label = label;
            this.shards = shards;
            this.keyed = keyed;
            this.inLanes = inLanes;
        }
    }

    private record Row(Shape shape, int repeat, long jobs, double seconds, double p50Micros, double p99Micros, double scriptsPerJob,
                       double valkeyMicrosPerJob, double slowPathShare) {
        double jobsPerSecond() {
            return jobs / seconds;
        }
    }

    @Test
    void keyedSubmissionsOnThreeShardsAgainstOneShardEachKeyMakingOneJob() throws Exception {
        List<Row> rows = new ArrayList<>();
        try (ValkeyCluster cluster = ValkeyCluster.start(); RedisClusterClient redis = cluster.newClient()) {
            for (int repeat = 1; repeat <= repeats; repeat++) {
                for (Shape shape : Shape.values()) {
                    Row row = measure(cluster, redis, shape, repeat);
                    rows.add(row);
                    System.out.print(table(List.of(row)));
                }
            }
        }
        System.out.println(table(rows) + summary(rows));
    }

    private Row measure(ValkeyCluster cluster, RedisClusterClient redis, Shape shape, int repeat) throws Exception {
        ShardLayout layout = ShardLayout.of("keyed-" + shape.ordinal() + "-" + repeat + "-" + System.nanoTime(), shape.shards);
        String queue = layout.queue();
        Function<NewJob, Enqueued> send = shape.shards == 1 ? unsharded(redis, queue) : sharded(redis, layout);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long warmupEnds = System.nanoTime() + warmup.toNanos();
            long windowEnds = warmupEnds + window.toNanos();
            List<Future<Submitter>> running = new ArrayList<>();
            CpuSample[] before = new CpuSample[1];
            for (int t = 0; t < threads; t++) {
                Submitter submitter = new Submitter(shape, layout, t, send, warmupEnds, windowEnds);
                running.add(pool.submit(() -> {
                    submitter.run();
                    return submitter;
                }));
            }
            sleepUntil(warmupEnds);
            before[0] = CpuSample.take(Map.of(), cluster.masterPorts(), cluster::connectTo);
            sleepUntil(windowEnds);
            CpuSample after = CpuSample.take(Map.of(), cluster.masterPorts(), cluster::connectTo);
            List<Submitter> done = new ArrayList<>();
            for (Future<Submitter> f : running) {
                done.add(f.get());
            }
            Histogram latencies = Stats.nanos();
            done.forEach(s -> latencies.add(s.latencies));
            long slow = done.stream().mapToLong(s -> s.slowPath).sum();
            double seconds = after.wallSeconds(before[0]);
            assertEachKeyNamesItsFirstJob(shape, layout, send, done.get(0));
            long calls = latencies.getTotalCount();
            return new Row(shape, repeat, calls, seconds, Stats.micros(latencies, 50), Stats.micros(latencies, 99),
                    (double) after.valkeyScriptCalls(before[0]) / Math.max(1, calls),
                    after.valkeyPercent(before[0]) * seconds * 10_000 / Math.max(1, calls),
                    (double) slow / Math.max(1, done.stream().mapToLong(s -> s.sent).sum()));
        } finally {
            pool.shutdownNow();
        }
    }

    private static Function<NewJob, Enqueued> unsharded(RedisClusterClient redis, String queue) {
        QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT);
        return job -> client.submissions().enqueue(queue, job);
    }

    private static Function<NewJob, Enqueued> sharded(RedisClusterClient redis, ShardLayout layout) {
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout);
        return job -> queue.submissions().enqueue(layout.queue(), job);
    }

    /** The first keys one submitter sent, sent again from their lane and from a lane of another shard: each answers its first job. */
    private static void assertEachKeyNamesItsFirstJob(Shape shape, ShardLayout layout, Function<NewJob, Enqueued> send, Submitter first) {
        if (!shape.keyed) {
            return;
        }
        for (int n = 0; n < Math.min(RESENT, first.firstIds.size()); n++) {
            NewJob again = first.job(n);
            Enqueued answered = send.apply(again);
            assertThat(answered.created()).as("%s: key %s sent again", shape.label, again.idempotencyKey().orElseThrow()).isFalse();
            assertThat(answered.id()).isEqualTo(first.firstIds.get(n));
            if (shape.inLanes && layout.shards() > 1) {
                String lane = again.lane().orElseThrow();
                String elsewhere = lanes().stream().filter(l -> layout.shardOfLane(l) != layout.shardOfLane(lane)).findFirst().orElseThrow();
                assertThat(send.apply(first.job(n, elsewhere)).id()).as("%s: key sent again from lane %s", shape.label, elsewhere)
                        .isEqualTo(first.firstIds.get(n));
            }
        }
    }

    /** One thread sending one job per call until {@code windowEnds}; latencies kept for the calls sent inside the window. */
    private static final class Submitter implements Runnable {

        private final Shape shape;
        private final ShardLayout layout;
        private final int thread;
        private final Function<NewJob, Enqueued> send;
        private final long warmupEnds;
        private final long windowEnds;
        /** The calls sent inside the window, in nanoseconds. */
        private final Histogram latencies = Stats.nanos();
        private long sent;
        private long slowPath;
        /** The ids of the first {@link #RESENT} jobs, by their number. */
        private final List<String> firstIds = new ArrayList<>();

        Submitter(Shape shape, ShardLayout layout, int thread, Function<NewJob, Enqueued> send, long warmupEnds, long windowEnds) {
            this.shape = shape;
            this.layout = layout;
            this.thread = thread;
            this.send = send;
            this.warmupEnds = warmupEnds;
            this.windowEnds = windowEnds;
        }

        @Override
        public void run() {
            for (int n = 0; ; n++) {
                long start = System.nanoTime();
                if (start - windowEnds >= 0) {
                    return;
                }
                NewJob job = job(n);
                Enqueued made = send.apply(job);
                long took = System.nanoTime() - start;
                if (!made.created()) {
                    throw new IllegalStateException(shape.label + ": a new key answered an earlier job " + made.id());
                }
                if (firstIds.size() < RESENT) {
                    firstIds.add(made.id());
                }
                sent++;
                if (takesTheSlowPath(job)) {
                    slowPath++;
                }
                if (start - warmupEnds >= 0) {
                    latencies.recordValue(took);
                }
            }
        }

        NewJob job(int n) {
            return job(n, lanes().get((thread + n) % LANES));
        }

        NewJob job(int n, String lane) {
            NewJob job = NewJob.of("{\"n\":" + n + "}");
            if (shape.inLanes) {
                job = job.inLane(lane);
            }
            return shape.keyed ? job.withIdempotencyKey("k-" + thread + "-" + n) : job;
        }

        /** A keyed job whose key's owner is not its lane's shard goes through the key homes (3.1). */
        private boolean takesTheSlowPath(NewJob job) {
            return layout.shards() > 1 && job.idempotencyKey().isPresent() && job.lane().isPresent()
                    && layout.ownerOfKey(job.idempotencyKey().get()) != layout.shardOfLane(job.lane().get());
        }
    }

    private static List<String> lanes() {
        return java.util.stream.IntStream.range(0, LANES).mapToObj(i -> "lane-" + i).toList();
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            Thread.sleep(Math.max(1, left / 1_000_000));
        }
    }

    private String table(List<Row> rows) {
        StringBuilder out = new StringBuilder(String.format("%nkeyed submissions: %d threads, one job per call, warm-up %d s excluded, window %d s, "
                + "3-master cluster, %d cores%n", threads, warmup.toSeconds(), window.toSeconds(), Runtime.getRuntime().availableProcessors()));
        out.append(String.format("%-27s | %6s | %7s | %6s | %8s | %8s | %11s | %16s | %9s%n", "shape", "repeat", "jobs", "jobs/s", "p50 µs",
                "p99 µs", "scripts/job", "valkey µs cpu/job", "slow path"));
        for (Row r : rows) {
            out.append(String.format("%-27s | %6d | %7d | %6.0f | %8.0f | %8.0f | %11.2f | %16.1f | %8.0f%%%n", r.shape.label, r.repeat, r.jobs,
                    r.jobsPerSecond(), r.p50Micros, r.p99Micros, r.scriptsPerJob, r.valkeyMicrosPerJob, 100 * r.slowPathShare));
        }
        return out.toString();
    }

    /** Per shape: medians over the repeats, and jobs/s against the keyed jobs of one shard. */
    private String summary(List<Row> rows) {
        Map<Shape, List<Row>> byShape = rows.stream().collect(Collectors.groupingBy(Row::shape));
        double baseline = Stats.median(byShape.get(Shape.ONE_SHARD_KEYED_LANES).stream().map(Row::jobsPerSecond).toList());
        StringBuilder out = new StringBuilder(String.format("%nkeyed submissions, medians over %d repeat(s)%n", repeats));
        out.append(String.format("%-27s | %6s | %16s | %8s | %8s | %11s%n", "shape", "jobs/s", "vs 1 shard keyed", "p50 µs", "p99 µs",
                "scripts/job"));
        for (Shape shape : Shape.values()) {
            List<Row> of = byShape.get(shape);
            double rate = Stats.median(of.stream().map(Row::jobsPerSecond).toList());
            out.append(String.format("%-27s | %6.0f | %15.2fx | %8.0f | %8.0f | %11.2f%n", shape.label, rate, rate / baseline,
                    Stats.median(of.stream().map(Row::p50Micros).toList()), Stats.median(of.stream().map(Row::p99Micros).toList()),
                    Stats.median(of.stream().map(Row::scriptsPerJob).toList())));
        }
        return out.toString();
    }
}
