package io.echomq.bench;

import java.util.List;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Medians of rounds and percentiles of recorded durations, the only statistics the bench
 * reports. Durations are recorded in nanoseconds into HdrHistograms (3 significant digits), so a
 * run keeps no list of its samples and sorts none at the end. Public for the benchmarks of
 * {@code bench/scaling}, which report the same statistics.
 */
public final class Stats {

    private static final int SIGNIFICANT_DIGITS = 3;

    private Stats() {
    }

    public static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** An empty histogram of nanoseconds that grows to any duration, for one recording thread. */
    public static Histogram nanos() {
        Histogram histogram = new Histogram(SIGNIFICANT_DIGITS);
        histogram.setAutoResize(true);
        return histogram;
    }

    /** {@link #nanos()} for many recording threads (a worker's runners). */
    public static Histogram concurrentNanos() {
        return new ConcurrentHistogram(SIGNIFICANT_DIGITS);
    }

    /** The {@code p}-th percentile (0 < p <= 100) of {@code nanos}, in milliseconds; 0 when empty. */
    public static double millis(Histogram nanos, double p) {
        return nanos.getValueAtPercentile(p) / 1e6;
    }

    /** The {@code p}-th percentile (0 < p <= 100) of {@code nanos}, in microseconds; 0 when empty. */
    public static double micros(Histogram nanos, double p) {
        return nanos.getValueAtPercentile(p) / 1e3;
    }
}
