package io.echomq.bench;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Lease;
import io.echomq.queue.Leases;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.limits.QueueLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.RedisClient;

/**
 * How the queue behaves as it grows: claim latency with 10^3 to 10^6 jobs pending, and what a
 * job costs Valkey in memory while pending and once completed and retained.
 */
final class QueueDepth {

    /** Claim latency percentiles at one depth, in microseconds. */
    record ClaimLatency(int pending, double p50Micros, double p99Micros) {

        static ClaimLatency of(int pending, Histogram nanos) {
            return new ClaimLatency(pending, Stats.micros(nanos, 50), Stats.micros(nanos, 99));
        }
    }

    /**
     * Valkey bytes per job from INFO memory deltas: per pending job over {@code jobs}, per
     * completed job over the {@code retained} ones; and MEMORY USAGE of one completed job's keys.
     */
    record JobMemory(int jobs, double bytesPerPending, long retained, double bytesPerCompleted, long jobHashBytes, long historyBytes) {
    }

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final Servers servers;

    QueueDepth(Servers servers) {
        this.servers = servers;
    }

    /**
     * Fills one queue per depth, then claims one job at a time from each in turn (and completes
     * it), so the machine's noise falls on every depth alike.
     */
    List<ClaimLatency> claimLatency(List<Integer> depths, int samples) {
        try (RedisClient redis = servers.newRedis()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            List<String> names = depths.stream().map(d -> "depth-" + d + "-" + ProcessHandle.current().pid()).toList();
            for (int i = 0; i < depths.size(); i++) {
                Workload.preload(queue, names.get(i), depths.get(i) + samples);
            }
            List<Histogram> nanos = depths.stream().map(d -> Stats.nanos()).toList();
            for (int s = 0; s < samples; s++) {
                for (int i = 0; i < depths.size(); i++) {
                    claimAndComplete(queue, names.get(i), nanos.get(i));
                }
            }
            List<ClaimLatency> out = new ArrayList<>();
            for (int i = 0; i < depths.size(); i++) {
                out.add(ClaimLatency.of(depths.get(i), nanos.get(i)));
            }
            return out;
        }
    }

    /** Claim latency percentiles of the same queue shape without and with priorities and limits, in microseconds. */
    record LimitedClaim(int pending, int lanes, QueueLimits limits, ClaimLatency plain, ClaimLatency limited) {
        double p99Ratio() {
            return limited.p99Micros() / plain.p99Micros();
        }
    }

    /**
     * The cost of priorities, caps and rate limits in the claim: two queues of {@code pending} jobs
     * over {@code lanes} lanes, one plain, one with priorities 0-9 at random and every limit set
     * (wide enough that the claims go on getting jobs: the row prices the checks, not waiting),
     * claimed one job at a time from each in turn and completed, as {@link #claimLatency} does.
     */
    LimitedClaim claimWithLimits(int pending, int lanes, int samples) {
        QueueLimits limits = QueueLimits.NONE.withMaxActive(10_000).withRate(1_000_000, Duration.ofSeconds(1)).withLaneMaxActive(5)
                .withLaneRate(1_000, Duration.ofSeconds(1));
        try (RedisClient redis = servers.newRedis()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            String plain = "claim-plain-" + ProcessHandle.current().pid();
            String limited = "claim-limited-" + ProcessHandle.current().pid();
            Workload.preload(queue, plain, pending + samples, lanes, false);
            Workload.preload(queue, limited, pending + samples, lanes, true);
            queue.admin().setLimits(limited, limits);
            Histogram plainNanos = Stats.nanos();
            Histogram limitedNanos = Stats.nanos();
            for (int s = 0; s < samples; s++) {
                claimAndComplete(queue, plain, plainNanos);
                claimAndComplete(queue, limited, limitedNanos);
            }
            return new LimitedClaim(pending, lanes, limits, ClaimLatency.of(pending, plainNanos), ClaimLatency.of(pending, limitedNanos));
        }
    }

    /** Claims one job of {@code queueName}, recording how long the claim took, and completes it. */
    private static void claimAndComplete(QueueClient queue, String queueName, Histogram claimNanos) {
        long start = System.nanoTime();
        List<ClaimedJob> claimed = queue.leases().claim(queueName, Duration.ofMinutes(10), 1, "depth");
        claimNanos.recordValue(System.nanoTime() - start);
        queue.leases().complete(claimed.get(0).lease());
    }

    /**
     * Valkey's bytes per pending job over {@code jobs} jobs; per completed job over those the
     * settle path's retention kept (at most its keep count: the older ones went as later jobs
     * completed, so dividing by every job run would count them as costing nothing); and MEMORY
     * USAGE of the newest completed job, which retention keeps.
     */
    JobMemory memory(int jobs) {
        // A queue of its own, or the jobs kept from an earlier measurement would count in this one's.
        String queueName = "memory-" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet();
        try (RedisClient redis = servers.newRedis()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            long empty = ValkeyMemory.used(redis);
            Workload.preload(queue, queueName, jobs);
            long pending = ValkeyMemory.used(redis);
            List<Lease> finished = List.of();
            Lease newest = null;
            do {
                finished = queue.leases().completeAndClaim(queueName, finished, Duration.ofMinutes(10), Leases.MAX_CLAIM_JOBS, "memory")
                        .claimed().stream().map(ClaimedJob::lease).toList();
                if (!finished.isEmpty()) {
                    newest = finished.get(finished.size() - 1);
                }
            } while (!finished.isEmpty());
            long completed = ValkeyMemory.used(redis);
            long retained = queue.reads().stats(queueName).completed();
            // The key layout is the README's published one; the bench reads it as an operator would.
            String newestJob = "echomq:{" + queueName + "}:job:" + newest.jobId();
            return new JobMemory(jobs, (pending - empty) / (double) jobs, retained, (completed - empty) / (double) retained,
                    memoryUsage(redis, newestJob), memoryUsage(redis, newestJob + ":log"));
        }
    }

    /** MEMORY USAGE of a key that must exist: Valkey answers nil for a missing one, which is no size. */
    private static long memoryUsage(RedisClient redis, String key) {
        Long bytes = redis.memoryUsage(key);
        if (bytes == null) {
            throw new IllegalStateException("MEMORY USAGE " + key + ": no such key");
        }
        return bytes;
    }
}
