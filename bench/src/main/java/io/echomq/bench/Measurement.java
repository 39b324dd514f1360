package io.echomq.bench;

import java.lang.management.ManagementFactory;

/**
 * One run of one contestant: how many jobs, how fast, and (when measured) the latency from
 * enqueue to effect committed, the CPU time this JVM spent on the run (for contestants that
 * run in it) and the CPU time Valkey spent on it (for contestants that use it). NaN where not
 * measured.
 */
record Measurement(int jobs, double seconds, double p50Millis, double p99Millis, double jvmCpuSeconds,
        double valkeyCpuSeconds) {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    Measurement(int jobs, double seconds, double p50Millis, double p99Millis) {
        this(jobs, seconds, p50Millis, p99Millis, Double.NaN, Double.NaN);
    }

    static Measurement throughput(int jobs, double seconds) {
        return new Measurement(jobs, seconds, Double.NaN, Double.NaN);
    }

    /** A run in this JVM that began when {@link #jvmCpuNow()} read {@code cpuAtStart}. */
    static Measurement throughput(int jobs, double seconds, double cpuAtStart) {
        return new Measurement(jobs, seconds, Double.NaN, Double.NaN, jvmCpuNow() - cpuAtStart, Double.NaN);
    }

    /** This run, with the CPU time Valkey spent on it ({@link Servers#withValkeyCpu}). */
    Measurement withValkeyCpu(double valkeyCpuSeconds) {
        return new Measurement(jobs, seconds, p50Millis, p99Millis, jvmCpuSeconds, valkeyCpuSeconds);
    }

    /**
     * CPU time of this whole JVM so far (all threads: ours, the JIT's, the collector's). Per job,
     * it is far steadier than throughput on a shared machine, so it shows small changes.
     */
    static double jvmCpuNow() {
        return OS.getProcessCpuTime() / 1e9;
    }

    double jobsPerSecond() {
        return jobs / seconds;
    }

    double jvmCpuMicrosPerJob() {
        return jvmCpuSeconds / jobs * 1e6;
    }

    double valkeyCpuMicrosPerJob() {
        return valkeyCpuSeconds / jobs * 1e6;
    }
}
