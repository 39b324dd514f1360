package io.echomq.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What one run of the bench measures, and how much: the command line as {@link BenchCommand}
 * read and checked it (bench/README.md describes each option).
 *
 * @param rounds                rounds of every measurement, interleaved contestant after contestant
 * @param jobs                  jobs per throughput run
 * @param concurrencies         the worker concurrencies of the throughput and latency tables
 * @param depths                pending jobs of the claim-latency rows
 * @param claimSamples          claims timed per depth
 * @param claimOnly             only the claim-latency sections
 * @param memoryJobs            jobs of the Valkey memory section
 * @param heapJobs              jobs run before the worker's heap is measured
 * @param pgbenchSeconds        length of each pgbench run
 * @param latencySeconds        timed seconds of each latency run
 * @param latencyUntimedSeconds seconds of untimed jobs, at the same rate, before each latency run's timed ones
 * @param batchSize             most jobs per transaction of the batched mode and of its ceiling
 * @param latencyRate           when positive: only the latency rows, at this rate and the first concurrency
 * @param peer                  whether BullMQ runs beside us
 * @param soakMinutes           when positive: only the soak, this many minutes per mode
 * @param soakPerJobRate        the per-job soak's offered rate; 0: half of what a calibration drain reaches
 * @param soakBatchedRate       the batched soak's, likewise
 * @param soakModes             the soak's modes, in order
 * @param only                  when not empty: only the throughput of contestants whose name contains one of these (lower case)
 * @param out                   where the report goes
 */
record BenchOptions(
        int rounds,
        int jobs,
        List<Integer> concurrencies,
        List<Integer> depths,
        int claimSamples,
        boolean claimOnly,
        int memoryJobs,
        int heapJobs,
        int pgbenchSeconds,
        int latencySeconds,
        double latencyUntimedSeconds,
        int batchSize,
        double latencyRate,
        boolean peer,
        int soakMinutes,
        double soakPerJobRate,
        double soakBatchedRate,
        List<OurWorker.Mode> soakModes,
        List<String> only,
        Path out) {

    BenchOptions {
        concurrencies = List.copyOf(concurrencies);
        depths = List.copyOf(depths);
        soakModes = List.copyOf(soakModes);
        only = only.stream().map(part -> part.toLowerCase(Locale.ROOT)).toList();
    }

    /** Whether a contestant runs: every one, unless --only names parts of the chosen ones. */
    boolean picks(String contestant) {
        String name = contestant.toLowerCase(Locale.ROOT);
        return only.isEmpty() || only.stream().anyMatch(name::contains);
    }

    /** A run of some contestants only (for profiling or comparing one): nothing to compare them with. */
    boolean partial() {
        return !only.isEmpty();
    }

    /** The report header's summary of the run's size. */
    String summary() {
        return "rounds " + rounds + ", jobs " + jobs + ", concurrency " + concurrencies + ", depths " + depths + ", claim samples "
                + claimSamples + ", memory jobs " + memoryJobs + ", pgbench " + pgbenchSeconds + " s, batch size " + batchSize
                + ", peer " + peer;
    }
}
