package io.echomq.bench;

/**
 * One run of one contestant: how many jobs, how fast, and (when measured) the latency from
 * enqueue to effect committed. Latencies are NaN when not measured.
 */
record Measurement(int jobs, double seconds, double p50Millis, double p99Millis) {

    static Measurement throughput(int jobs, double seconds) {
        return new Measurement(jobs, seconds, Double.NaN, Double.NaN);
    }

    double jobsPerSecond() {
        return jobs / seconds;
    }
}
