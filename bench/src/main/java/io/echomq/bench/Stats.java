package io.echomq.bench;

import java.util.Arrays;
import java.util.List;

/** Medians and percentiles, the only statistics the bench reports. */
final class Stats {

    private Stats() {
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The nearest-rank percentile (0 < p <= 100) of {@code values}, which it sorts. */
    static double percentile(double[] values, double p) {
        Arrays.sort(values);
        int rank = (int) Math.ceil(p / 100 * values.length);
        return values[Math.max(0, Math.min(values.length - 1, rank - 1))];
    }
}
