package io.echomq.bench;

import io.echomq.bench.Soak.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The soak's targets: after the first {@link Soak#SETTLING_MINUTES} minutes, each resource stays
 * within ±10 % of its level (the median of those minutes), the effect rows within their retention
 * bound (they move in the retention's sawtooth by design), and the p99 latency within twice its
 * value over the first minutes (their median).
 */
final class SoakVerdict {

    private static final double BAND = 0.10;

    private SoakVerdict() {
    }

    static String of(List<Sample> samples, long effectRowBound) {
        if (samples.size() <= Soak.SETTLING_MINUTES) {
            return "Too short for a verdict: the flatness targets count from minute " + (Soak.SETTLING_MINUTES + 1) + ".";
        }
        List<Sample> settled = samples.subList(Soak.SETTLING_MINUTES, samples.size());
        List<String> lines = new ArrayList<>();
        lines.add(flat("Valkey used_memory", settled, Sample::valkeyBytes));
        lines.add(flat("completed set", settled, Sample::completedKept));
        lines.add(flat("job-event stream entries", settled, Sample::eventStreamEntries));
        lines.add(flat("job-event stream bytes", settled, Sample::eventStreamBytes));
        long mostRows = settled.stream().mapToLong(Sample::effectRows).max().orElse(0);
        lines.add(String.format(Locale.ROOT, "- effect rows: at most %,d after minute %d, against the retention bound rate × (age + the longest "
                + "a finished job's row waits past it) = %,d: %s", mostRows, Soak.SETTLING_MINUTES, effectRowBound, mostRows <= effectRowBound ? "**within**" : "**over**"));
        lines.add(flat("effect table bytes", settled, Sample::effectTableBytes));
        lines.add(flat("heap after GC", settled, Sample::heapAfterGcBytes));
        double firstP99 = Stats.median(samples.subList(0, Soak.SETTLING_MINUTES).stream().map(Sample::p99Millis).toList());
        double worstP99 = settled.stream().mapToDouble(Sample::p99Millis).max().orElse(0);
        lines.add(String.format(Locale.ROOT, "- p99 send → effect: at most %.1f ms after minute %d, against %.1f ms in the first minutes: %s",
                worstP99, Soak.SETTLING_MINUTES, firstP99, worstP99 <= 2 * firstP99 ? "**within 2×**" : "**over 2×**"));
        return String.join("\n", lines);
    }

    private static String flat(String what, List<Sample> settled, ToDoubleFunction<Sample> metric) {
        double level = Stats.median(settled.stream().map(metric::applyAsDouble).toList());
        double worst = settled.stream().mapToDouble(s -> Math.abs(metric.applyAsDouble(s) - level)).max().orElse(0);
        double deviation = level == 0 ? 0 : worst / level;
        return String.format(Locale.ROOT, "- %s: level %,.0f, largest deviation %.1f %%: %s", what, level, deviation * 100,
                deviation <= BAND ? "**flat**" : "**not flat**");
    }
}
