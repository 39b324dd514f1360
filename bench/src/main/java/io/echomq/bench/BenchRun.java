package io.echomq.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One run of the bench: every contestant on the same Valkey and PostgreSQL, rounds interleaved
 * (contestant after contestant, at each concurrency) so the shared machine's noise falls on all
 * alike; medians of the rounds; ratios side by side. It measures and hands each section's figures
 * to the {@link BenchReport}.
 */
final class BenchRun {

    private static final String PER_JOB_LEDGER = "EchoMQ per-job, ledger";
    private static final String BATCHED_LEDGER = "EchoMQ batched, ledger";
    private static final String BATCHED_FLOWS_LEDGER = "EchoMQ batched flows of 1+" + OurWorker.FLOW_CHILDREN + ", ledger";
    private static final String PER_JOB_LEDGER_NO_STREAM = "EchoMQ per-job, ledger, job-event stream off";
    private static final String BATCHED_LEDGER_NO_STREAM = "EchoMQ batched, ledger, job-event stream off";
    private static final String PER_JOB_NOOP = "EchoMQ per-job, no-op";
    private static final String BATCHED_NOOP = "EchoMQ batched, no-op";
    private static final String BULLMQ_LEDGER = "BullMQ + pg, ledger";
    private static final String BULLMQ_NOOP = "BullMQ, no-op";
    private static final String PG_PER_JOB = "ceiling: PG transaction alone (per job)";
    private static final String PGBENCH = "ceiling: pgbench, same SQL";
    private static final String CLAIM_COMPLETE = "ceiling: claim + complete pair alone";
    private static final String COMPLETE_CLAIM = "ceiling: complete-claim alone (c jobs per call)";
    /** Where the BullMQ peer's package is, from the repository's root (bench/run runs there). */
    private static final Path PEER_FOLDER = Path.of("bench", "bullmq");

    private final BenchOptions options;
    private final Servers servers;
    private final OurWorker ours;
    private final Ceilings ceilings;
    private final BullMqPeer bullmq;
    private final BenchReport report = new BenchReport();

    BenchRun(BenchOptions options, Servers servers) {
        this.options = options;
        this.servers = servers;
        this.ours = new OurWorker(servers, options.batchSize());
        this.ceilings = new Ceilings(servers);
        this.bullmq = new BullMqPeer(servers, PEER_FOLDER);
    }

    /** One line of the throughput table: a name and how to measure it at a concurrency. */
    private record Contestant(String name, Measure measure) {
    }

    @FunctionalInterface
    private interface Measure {
        Measurement at(int concurrency) throws Exception;
    }

    /** Runs what the options ask for; returns the report it wrote (a partial run writes none: null). */
    Path run() throws Exception {
        Files.createDirectories(options.out());
        report.header(servers, options);
        if (options.soakMinutes() > 0) {
            report.line(new Soak(servers, options.batchSize()).run(options.soakModes(), options.soakMinutes(), options.soakPerJobRate(),
                    options.soakBatchedRate(), options.out()));
            return report.writeTo(options.out().resolve("soak.md"));
        }
        if (options.peer()) {
            bullmq.install();
        }
        if (options.latencyRate() > 0) {
            latencyAt(options.concurrencies().get(0), options.latencyRate());
            return null;
        }
        if (options.claimOnly()) {
            claims(new QueueDepth(servers));
            return report.writeTo(options.out().resolve("claims.md"));
        }
        List<Contestant> contestants = contestants().stream().filter(c -> options.picks(c.name())).toList();
        if (options.partial()) {
            warmUp(contestants);
        }
        Map<String, List<Double>> rates = throughput(contestants);
        if (options.partial()) {
            // A partial run (for profiling one contestant) has nothing to compare but the stream's cost, when it ran both.
            Map<String, List<Double>> streamCost = streamCost(rates);
            if (!streamCost.isEmpty()) {
                report.byConcurrency("Job-event stream on / off (same run, same concurrency)", options.concurrencies(), streamCost,
                        v -> String.format(Locale.ROOT, "%.3f×", v));
                return report.writeTo(options.out().resolve("partial.md"));
            }
            return null;
        }
        ratios(rates);
        latency(rates, options.concurrencies());
        QueueDepth depth = new QueueDepth(servers);
        claims(depth);
        report.memory(depth.memory(options.memoryJobs()));
        heapAfter(options.heapJobs());
        Path written = report.writeTo(options.out().resolve("report.md"));
        ThroughputChart.write(options.out().resolve("throughput.png"), options.concurrencies(), chartLines(rates));
        System.out.println("\nwrote " + written + " and " + options.out().resolve("throughput.png"));
        return written;
    }

    private List<Contestant> contestants() {
        int jobs = options.jobs();
        List<Contestant> all = new ArrayList<>(List.of(
                new Contestant(PER_JOB_LEDGER, c -> ours.drain(OurWorker.Mode.PER_JOB, OurWorker.Effect.LEDGER, c, jobs)),
                new Contestant(BATCHED_LEDGER, c -> ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, c, jobs)),
                new Contestant(BATCHED_FLOWS_LEDGER, c -> ours.drainFlows(OurWorker.Effect.LEDGER, c, jobs)),
                // The same rows with the queue's job-event stream off (the others run with the default cap): its cost.
                new Contestant(PER_JOB_LEDGER_NO_STREAM, c -> ours.drain(OurWorker.Mode.PER_JOB, OurWorker.Effect.LEDGER, false, c, jobs)),
                new Contestant(BATCHED_LEDGER_NO_STREAM, c -> ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, false, c, jobs)),
                new Contestant(PER_JOB_NOOP, c -> ours.drain(OurWorker.Mode.PER_JOB, OurWorker.Effect.NOOP, c, jobs)),
                new Contestant(BATCHED_NOOP, c -> ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.NOOP, c, jobs))));
        if (options.peer()) {
            all.add(new Contestant(BULLMQ_LEDGER, c -> bullmq.drain(OurWorker.Effect.LEDGER, c, jobs)));
            all.add(new Contestant(BULLMQ_NOOP, c -> bullmq.drain(OurWorker.Effect.NOOP, c, jobs)));
        }
        all.addAll(List.of(
                new Contestant(PG_PER_JOB, c -> ceilings.postgresPerJob(c, jobs)),
                new Contestant(PGBENCH, c -> ceilings.pgbench(c, options.pgbenchSeconds())),
                new Contestant(batchCeilingName(), c -> ceilings.postgresBatched(c, jobs, options.batchSize())),
                new Contestant(CLAIM_COMPLETE, c -> ceilings.claimCompletePair(c, jobs)),
                new Contestant(COMPLETE_CLAIM, c -> ceilings.completeClaimFolded(c, jobs))));
        return all;
    }

    /**
     * One unrecorded run of each contestant at the first concurrency. A partial run is for
     * comparing a change: without this its first rounds would also measure the JIT compiling.
     * (A full run starts with the slowest contestants at c=1, which warm the JVM up as well.)
     */
    private void warmUp(List<Contestant> contestants) throws Exception {
        for (Contestant contestant : contestants) {
            Measurement run = contestant.measure().at(options.concurrencies().get(0));
            System.err.printf(Locale.ROOT, "bench: warm-up %-50s %,10.0f jobs/s (not counted)%n", contestant.name(), run.jobsPerSecond());
        }
    }

    private Map<String, List<Double>> throughput(List<Contestant> contestants) throws Exception {
        Map<String, List<Double>> medians = new LinkedHashMap<>();
        Map<String, List<Double>> jvmCpuMedians = new LinkedHashMap<>();
        Map<String, List<Double>> valkeyCpuMedians = new LinkedHashMap<>();
        for (int concurrency : options.concurrencies()) {
            Map<String, List<Double>> rounds = new LinkedHashMap<>();
            Map<String, List<Double>> jvmCpuRounds = new LinkedHashMap<>();
            Map<String, List<Double>> valkeyCpuRounds = new LinkedHashMap<>();
            for (int round = 1; round <= options.rounds(); round++) {
                for (Contestant contestant : contestants) {
                    Measurement run = contestant.measure().at(concurrency);
                    double rate = run.jobsPerSecond();
                    rounds.computeIfAbsent(contestant.name(), k -> new ArrayList<>()).add(rate);
                    String cpu = perJob(jvmCpuRounds, contestant.name(), run.jvmCpuMicrosPerJob(), "JVM")
                            + perJob(valkeyCpuRounds, contestant.name(), run.valkeyCpuMicrosPerJob(), "Valkey");
                    System.err.printf(Locale.ROOT, "bench: c=%d round %d %-50s %,10.0f jobs/s%s%n", concurrency, round, contestant.name(), rate, cpu);
                }
            }
            addMedians(rounds, medians);
            addMedians(jvmCpuRounds, jvmCpuMedians);
            addMedians(valkeyCpuRounds, valkeyCpuMedians);
        }
        List<Integer> concurrencies = options.concurrencies();
        report.byConcurrency("Throughput, jobs/s (median of " + options.rounds() + " rounds, " + options.jobs() + " jobs per run)",
                concurrencies, medians, v -> String.format(Locale.ROOT, "%,.0f", v));
        report.byConcurrency("CPU time of the bench JVM per job, µs (median of " + options.rounds()
                + " rounds; contestants that run in it: ours, and the ceilings' clients)", concurrencies, jvmCpuMedians,
                v -> String.format(Locale.ROOT, "%,.0f", v));
        report.byConcurrency("CPU time of Valkey per job, µs (median of " + options.rounds()
                + " rounds; contestants that use it; the drain only, the jobs were loaded before it)", concurrencies, valkeyCpuMedians,
                v -> String.format(Locale.ROOT, "%,.1f", v));
        return medians;
    }

    /** Appends each contestant's median of this concurrency's rounds to its row (one value per concurrency). */
    private static void addMedians(Map<String, List<Double>> rounds, Map<String, List<Double>> medians) {
        rounds.forEach((name, values) -> medians.computeIfAbsent(name, k -> new ArrayList<>()).add(Stats.median(values)));
    }

    /** Notes one round's CPU per job of a contestant, when measured; returns it for the progress line. */
    private static String perJob(Map<String, List<Double>> rounds, String contestant, double micros, String what) {
        if (Double.isNaN(micros)) {
            return "";
        }
        rounds.computeIfAbsent(contestant, k -> new ArrayList<>()).add(micros);
        return String.format(Locale.ROOT, "  %,6.1f µs %s CPU per job", micros, what);
    }

    private void ratios(Map<String, List<Double>> rates) {
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        if (options.peer()) {
            ratio(ratios, "per-job ledger / BullMQ + pg", rates, PER_JOB_LEDGER, BULLMQ_LEDGER);
            ratio(ratios, "batched ledger / BullMQ + pg", rates, BATCHED_LEDGER, BULLMQ_LEDGER);
            ratio(ratios, "per-job no-op / BullMQ no-op", rates, PER_JOB_NOOP, BULLMQ_NOOP);
            ratio(ratios, "batched no-op / BullMQ no-op", rates, BATCHED_NOOP, BULLMQ_NOOP);
        }
        ratios.putAll(streamCost(rates));
        ratio(ratios, "per-job ledger / pgbench same SQL", rates, PER_JOB_LEDGER, PGBENCH);
        ratio(ratios, "per-job ledger / PG transaction alone", rates, PER_JOB_LEDGER, PG_PER_JOB);
        ratio(ratios, "batched ledger / PG batch alone", rates, BATCHED_LEDGER, batchCeilingName());
        ratio(ratios, "batched flows of 1+" + OurWorker.FLOW_CHILDREN + " / batched plain jobs, ledger", rates, BATCHED_FLOWS_LEDGER,
                BATCHED_LEDGER);
        ratio(ratios, "per-job no-op / claim + complete pair", rates, PER_JOB_NOOP, CLAIM_COMPLETE);
        ratio(ratios, "batched no-op / complete-claim alone", rates, BATCHED_NOOP, COMPLETE_CLAIM);
        report.byConcurrency("Ratios (same run, same concurrency)", options.concurrencies(), ratios,
                v -> String.format(Locale.ROOT, "%.2f×", v));
    }

    /** What the job-event stream costs: each ledger row with the stream on (the default) over the same row with it off. */
    private static Map<String, List<Double>> streamCost(Map<String, List<Double>> rates) {
        Map<String, List<Double>> cost = new LinkedHashMap<>();
        if (rates.containsKey(PER_JOB_LEDGER) && rates.containsKey(PER_JOB_LEDGER_NO_STREAM)) {
            ratio(cost, "per-job ledger, stream on / off", rates, PER_JOB_LEDGER, PER_JOB_LEDGER_NO_STREAM);
        }
        if (rates.containsKey(BATCHED_LEDGER) && rates.containsKey(BATCHED_LEDGER_NO_STREAM)) {
            ratio(cost, "batched ledger, stream on / off", rates, BATCHED_LEDGER, BATCHED_LEDGER_NO_STREAM);
        }
        return cost;
    }

    private static void ratio(Map<String, List<Double>> out, String name, Map<String, List<Double>> rates, String ours, String theirs) {
        List<Double> a = rates.get(ours);
        List<Double> b = rates.get(theirs);
        List<Double> r = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            r.add(a.get(i) / b.get(i));
        }
        out.put(name, r);
    }

    /**
     * Each contestant at half its own best drain rate, offered open-loop, at every concurrency
     * that drains at least that rate; latency enqueue → effect committed. Rounds are
     * interleaved as for throughput and each cell is the median of the rounds: one stall of the
     * shared machine within a few seconds moves a p99 by tens of milliseconds.
     *
     * @param rates each contestant's drain rate at each of {@code concurrencies}
     */
    private void latency(Map<String, List<Double>> rates, List<Integer> concurrencies) throws Exception {
        List<LatencyContestant> contestants = new ArrayList<>();
        contestants.add(new LatencyContestant(PER_JOB_LEDGER,
                (c, untimed, jobs, rate) -> ours.latency(OurWorker.Mode.PER_JOB, OurWorker.Effect.LEDGER, c, untimed, jobs, rate)));
        contestants.add(new LatencyContestant(BATCHED_LEDGER,
                (c, untimed, jobs, rate) -> ours.latency(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, c, untimed, jobs, rate)));
        if (options.peer()) {
            contestants.add(new LatencyContestant(BULLMQ_LEDGER,
                    (c, untimed, jobs, rate) -> bullmq.latency(OurWorker.Effect.LEDGER, c, untimed, jobs, rate)));
        }
        contestants.removeIf(contestant -> !rates.containsKey(contestant.name()));
        Map<String, Double> offered = new LinkedHashMap<>();
        contestants.forEach(contestant -> offered.put(contestant.name(), halfOfBest(rates.get(contestant.name()))));
        warmUpLatency(contestants, rates, offered, concurrencies);
        Map<String, Map<Integer, List<Measurement>>> runs = new LinkedHashMap<>();
        for (int i = 0; i < concurrencies.size(); i++) {
            int concurrency = concurrencies.get(i);
            for (int round = 1; round <= options.rounds(); round++) {
                for (LatencyContestant contestant : contestants) {
                    double rate = offered.get(contestant.name());
                    if (rates.get(contestant.name()).get(i) < rate) {
                        continue;
                    }
                    Measurement m = contestant.run().run(concurrency, untimedJobs(rate), latencyJobs(rate, 1), rate);
                    System.err.printf(Locale.ROOT, "bench: latency c=%d round %d %-30s at %,.0f jobs/s: p50 %.1f p99 %.1f ms%n",
                            concurrency, round, contestant.name(), rate, m.p50Millis(), m.p99Millis());
                    runs.computeIfAbsent(contestant.name(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(concurrency, k -> new ArrayList<>()).add(m);
                }
            }
        }
        List<BenchReport.LatencyRow> rows = new ArrayList<>();
        for (LatencyContestant contestant : contestants) {
            List<BenchReport.LatencyCell> cells = new ArrayList<>();
            for (int concurrency : concurrencies) {
                List<Measurement> measured = runs.getOrDefault(contestant.name(), Map.of()).get(concurrency);
                cells.add(measured == null ? null : new BenchReport.LatencyCell(
                        Stats.median(measured.stream().map(Measurement::p50Millis).toList()),
                        Stats.median(measured.stream().map(Measurement::p99Millis).toList())));
            }
            rows.add(new BenchReport.LatencyRow(contestant.name(), offered.get(contestant.name()), cells));
        }
        report.latency(options, concurrencies, rows);
    }

    /**
     * One unrecorded open-loop run of each contestant, three rounds long, at the concurrency that
     * drained fastest (which surely keeps up with half that rate; the lowest concurrency that
     * passed the drain test may not, open-loop, and would only build a backlog). Throughput runs
     * never send single jobs on a timer, so without it the first latency rounds also measure the
     * JIT compiling that path (measured, batched at c=64: C2 took 42 % of the JVM's CPU over the
     * first two 5-second runs, whose p50s were 2 to 25 times those of the fourth run on).
     */
    private void warmUpLatency(List<LatencyContestant> contestants, Map<String, List<Double>> rates, Map<String, Double> offered,
            List<Integer> concurrencies) throws Exception {
        for (LatencyContestant contestant : contestants) {
            List<Double> drained = rates.get(contestant.name());
            int concurrency = concurrencies.get(drained.indexOf(Collections.max(drained)));
            double rate = offered.get(contestant.name());
            Measurement m = contestant.run().run(concurrency, untimedJobs(rate), latencyJobs(rate, 3), rate);
            System.err.printf(Locale.ROOT, "bench: latency warm-up c=%d %-30s at %,.0f jobs/s: p50 %.1f p99 %.1f ms (not counted)%n",
                    concurrency, contestant.name(), rate, m.p50Millis(), m.p99Millis());
        }
    }

    /**
     * Jobs sent first in each open-loop run, at its rate, and not timed. Every run starts a new
     * worker with a new pool (for us) or process (BullMQ); measured, per-job at c=4 and 1,400
     * jobs/s, its first 0.4 to 1 s built a backlog of up to 150 ms (effects 2 to 3 times slower on
     * new connections, and a worker at 80 % of its capacity drains a backlog slowly), which made the
     * run's p99 that of the start rather than of a running worker.
     */
    private int untimedJobs(double rate) {
        return (int) Math.round(rate * options.latencyUntimedSeconds());
    }

    /** The batched transaction's ceiling row, named for the batch size, so the ratio finds it. */
    private String batchCeilingName() {
        return "ceiling: PG transaction alone (batches of " + options.batchSize() + ")";
    }

    /** Jobs for an open-loop run of {@code rounds} rounds' length at {@code rate}; at least 1,000, for a p99 worth the name. */
    private int latencyJobs(double rate, int rounds) {
        return (int) Math.max(1_000, rate * options.latencySeconds() * rounds);
    }

    private static double halfOfBest(List<Double> byConcurrency) {
        return Collections.max(byConcurrency) / 2;
    }

    /** The latency rows at one given rate and concurrency, nothing else (for tuning; {@code --latency-rate}). */
    private void latencyAt(int concurrency, double rate) throws Exception {
        Map<String, List<Double>> fixed = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(List.of(PER_JOB_LEDGER, BATCHED_LEDGER));
        if (options.peer()) {
            names.add(BULLMQ_LEDGER);
        }
        // One "best" of twice the rate at the given concurrency, so each row runs at exactly that rate and concurrency.
        names.removeIf(name -> !options.picks(name));
        names.forEach(name -> fixed.put(name, List.of(rate * 2)));
        // In a full run the throughput rounds warm the worker up first; here a drain of each mode does (latency() then
        // warms the open-loop path itself).
        ours.drain(OurWorker.Mode.PER_JOB, OurWorker.Effect.LEDGER, concurrency, options.jobs() / 4);
        ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, concurrency, options.jobs());
        latency(fixed, List.of(concurrency));
    }

    @FunctionalInterface
    private interface LatencyRun {
        /** {@code untimed} jobs at {@code rate} to reach a steady state, then {@code jobs} timed ones. */
        Measurement run(int concurrency, int untimed, int jobs, double rate) throws Exception;
    }

    private record LatencyContestant(String name, LatencyRun run) {
    }

    /** Claim latency against depth, then the claim with priorities, caps and rate limits against the plain one. */
    private void claims(QueueDepth depth) {
        List<Integer> depths = options.depths();
        List<QueueDepth.ClaimLatency> byDepth = depth.claimLatency(depths, options.claimSamples());
        int pending = depths.size() > 1 ? depths.get(1) : depths.get(0);
        report.claims(options.claimSamples(), byDepth, depth.claimWithLimits(pending, BenchCommand.CLAIM_LANES, options.claimSamples()));
    }

    private void heapAfter(int jobs) throws Exception {
        Measurement run = ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, 16, jobs);
        System.gc();
        System.gc();
        report.heap(jobs, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), run);
    }

    private Map<String, List<Double>> chartLines(Map<String, List<Double>> rates) {
        Map<String, List<Double>> lines = new LinkedHashMap<>();
        for (String name : List.of(PER_JOB_LEDGER, BATCHED_LEDGER, BULLMQ_LEDGER, BULLMQ_NOOP, PGBENCH, PG_PER_JOB, CLAIM_COMPLETE)) {
            if (rates.containsKey(name)) {
                lines.put(name, rates.get(name));
            }
        }
        return lines;
    }
}
