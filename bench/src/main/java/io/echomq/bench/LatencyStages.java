package io.echomq.bench;

import io.echomq.queue.ClaimedJob;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.HdrHistogram.Histogram;

/**
 * Where the timed jobs of one latency run spent their time, from the worker's own reports: from
 * the send until a runner starts on the job (pending in Valkey, the claim call, the hand-off to
 * a runner), from then until the effect transaction begins (the batch's other jobs being set up),
 * the effect transaction, and from its commit until Valkey accepted the acknowledgement (not part
 * of the latency, which ends at the commit). Also the jobs a claim call brought, which says how
 * full the batches were. Thread-safe: runners and the turn report concurrently.
 */
final class LatencyStages {

    private final Histogram toRunner = Stats.concurrentNanos();
    private final Histogram toEffect = Stats.concurrentNanos();
    private final Histogram effect = Stats.concurrentNanos();
    private final Histogram toAcknowledged = Stats.concurrentNanos();
    /** Jobs per claim call that found any, recorded as a count. */
    private final Histogram jobsPerClaim = new org.HdrHistogram.ConcurrentHistogram(3);
    /** By job id: when a runner started on the timed job (nanoTime), then when its effect committed. */
    private final Map<String, long[]> times = new ConcurrentHashMap<>();

    void claimCall(Duration took, int jobs) {
        jobsPerClaim.recordValue(jobs);
    }

    void started(ClaimedJob job, long sentNanos) {
        long now = System.nanoTime();
        toRunner.recordValue(Math.max(0, now - sentNanos));
        times.put(job.id(), new long[] {now, 0});
    }

    void committed(ClaimedJob job, Duration took) {
        long now = System.nanoTime();
        long[] at = times.get(job.id());
        effect.recordValue(took.toNanos());
        if (at != null) {
            toEffect.recordValue(Math.max(0, now - took.toNanos() - at[0]));
            at[1] = now;
        }
    }

    void acknowledged(ClaimedJob job) {
        long[] at = times.remove(job.id());
        if (at != null && at[1] != 0) {
            toAcknowledged.recordValue(System.nanoTime() - at[1]);
        }
    }

    /** One stderr line: each stage's p50 / p99 in ms, the claim calls' jobs, and the CPU per job of the run. */
    void print(String queueName, Measurement run) {
        System.err.printf(Locale.ROOT, "bench: %s stages ms p50/p99: send→runner %.1f/%.1f, runner→effect %.1f/%.1f, "
                        + "effect %.1f/%.1f, commit→acknowledged %.1f/%.1f; jobs per claim p50 %d p99 %d max %d; "
                        + "CPU per job µs: JVM %.1f, Valkey %.1f%n", queueName,
                Stats.millis(toRunner, 50), Stats.millis(toRunner, 99), Stats.millis(toEffect, 50), Stats.millis(toEffect, 99),
                Stats.millis(effect, 50), Stats.millis(effect, 99), Stats.millis(toAcknowledged, 50),
                Stats.millis(toAcknowledged, 99), jobsPerClaim.getValueAtPercentile(50), jobsPerClaim.getValueAtPercentile(99),
                jobsPerClaim.getMaxValue(), run.jvmCpuMicrosPerJob(), run.valkeyCpuMicrosPerJob());
    }
}
