package io.echomq.bench;

import io.echomq.worker.WorkerSettings;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The benchmark, run by {@code bench/run}: every contestant on the same Valkey and PostgreSQL in
 * one run, rounds interleaved (contestant after contestant, at each concurrency) so the shared
 * machine's noise falls on all alike; medians of the rounds; ratios side by side. Writes
 * {@code report.md} and {@code throughput.png} into the output folder and prints the report.
 */
public final class Bench {

    private final Options options;
    private final Servers servers;
    private final OurWorker ours;
    private final Ceilings ceilings;
    private final BullMqPeer bullmq;
    private final StringBuilder report = new StringBuilder();

    private Bench(Options options, Servers servers) {
        this.options = options;
        this.servers = servers;
        this.ours = new OurWorker(servers, options.batchSize);
        this.ceilings = new Ceilings(servers);
        this.bullmq = new BullMqPeer(servers, options.peerFolder);
    }

    /** Held so the settings stick: the JDK keeps loggers only weakly. */
    private static final List<Logger> QUIETED = List.of(Logger.getLogger("com.zaxxer.hikari"), Logger.getLogger("io.echomq"),
            Logger.getLogger("org.flywaydb"));

    public static void main(String[] args) throws Exception {
        // Pool and worker start/stop lines would bury the figures; warnings still show.
        QUIETED.forEach(l -> l.setLevel(Level.WARNING));
        Options options = Options.parse(args);
        Files.createDirectories(options.out);
        Bench bench = new Bench(options, Servers.start());
        bench.run();
        // The harness's servers are child processes; its shutdown hook stops them.
        System.exit(0);
    }

    /** One line of the throughput table: a name and how to measure it at a concurrency. */
    private record Contestant(String name, Measure measure) {
    }

    @FunctionalInterface
    private interface Measure {
        Measurement at(int concurrency) throws Exception;
    }

    private void run() throws Exception {
        header();
        if (options.soakMinutes > 0) {
            String section = new Soak(servers, options.batchSize).run(options.soakModes, options.soakMinutes, options.soakPerJobRate,
                    options.soakBatchedRate, options.out);
            line(section);
            Files.writeString(options.out.resolve("soak.md"), report);
            return;
        }
        if (options.peer) {
            bullmq.install();
        }
        if (options.latencyRate > 0) {
            latencyAt(options.concurrencies.get(0), options.latencyRate);
            return;
        }
        if (options.claimOnly) {
            claims(new QueueDepth(servers));
            Files.writeString(options.out.resolve("claims.md"), report);
            return;
        }
        List<Contestant> contestants = contestants().stream()
                .filter(c -> options.picks(c.name()))
                .toList();
        if (!options.only.isEmpty()) {
            warmUp(contestants);
        }
        Map<String, List<Double>> rates = throughput(contestants);
        if (!options.only.isEmpty()) {
            // A partial run (for profiling one contestant) has nothing to compare.
            return;
        }
        ratios(rates);
        latency(rates);
        depth();
        heapAfter(options.heapJobs);
        Files.writeString(options.out.resolve("report.md"), report);
        ThroughputChart.write(options.out.resolve("throughput.png"), options.concurrencies, chartLines(rates));
        System.out.println("\nwrote " + options.out.resolve("report.md") + " and " + options.out.resolve("throughput.png"));
    }

    private List<Contestant> contestants() {
        int jobs = options.jobs;
        List<Contestant> all = new ArrayList<>(List.of(
                new Contestant("EchoMQ per-job, ledger", c -> ours.drain(OurWorker.Mode.PER_JOB, OurWorker.Effect.LEDGER, c, jobs)),
                new Contestant("EchoMQ batched, ledger", c -> ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, c, jobs)),
                new Contestant("EchoMQ per-job, no-op", c -> ours.drain(OurWorker.Mode.PER_JOB, OurWorker.Effect.NOOP, c, jobs)),
                new Contestant("EchoMQ batched, no-op", c -> ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.NOOP, c, jobs))));
        if (options.peer) {
            all.add(new Contestant("BullMQ + pg, ledger", c -> bullmq.drain(OurWorker.Effect.LEDGER, c, jobs)));
            all.add(new Contestant("BullMQ, no-op", c -> bullmq.drain(OurWorker.Effect.NOOP, c, jobs)));
        }
        all.addAll(List.of(
                new Contestant("ceiling: PG transaction alone (per job)", c -> ceilings.postgresPerJob(c, jobs)),
                new Contestant("ceiling: pgbench, same SQL", c -> ceilings.pgbench(c, options.pgbenchSeconds)),
                new Contestant(batchCeilingName(), c -> ceilings.postgresBatched(c, jobs, options.batchSize)),
                new Contestant("ceiling: claim + complete pair alone", c -> ceilings.claimCompletePair(c, jobs)),
                new Contestant("ceiling: complete-claim alone (c jobs per call)", c -> ceilings.completeClaimFolded(c, jobs))));
        return all;
    }

    /**
     * One unrecorded run of each contestant at the first concurrency. A partial run is for
     * comparing a change: without this its first rounds would also measure the JIT compiling.
     * (A full run starts with the slowest contestants at c=1, which warm the JVM up as well.)
     */
    private void warmUp(List<Contestant> contestants) throws Exception {
        for (Contestant contestant : contestants) {
            Measurement run = contestant.measure().at(options.concurrencies.get(0));
            System.err.printf(Locale.ROOT, "bench: warm-up %-50s %,10.0f jobs/s (not counted)%n", contestant.name(), run.jobsPerSecond());
        }
    }

    private Map<String, List<Double>> throughput(List<Contestant> contestants) throws Exception {
        Map<String, List<Double>> medians = new LinkedHashMap<>();
        Map<String, List<Double>> jvmCpuMedians = new LinkedHashMap<>();
        Map<String, List<Double>> valkeyCpuMedians = new LinkedHashMap<>();
        for (int concurrency : options.concurrencies) {
            Map<String, List<Double>> rounds = new LinkedHashMap<>();
            Map<String, List<Double>> jvmCpuRounds = new LinkedHashMap<>();
            Map<String, List<Double>> valkeyCpuRounds = new LinkedHashMap<>();
            for (int round = 1; round <= options.rounds; round++) {
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
        section("Throughput, jobs/s (median of " + options.rounds + " rounds, " + options.jobs + " jobs per run)");
        table(medians, v -> String.format(Locale.ROOT, "%,.0f", v));
        section("CPU time of the bench JVM per job, µs (median of " + options.rounds
                + " rounds; contestants that run in it: ours, and the ceilings' clients)");
        table(jvmCpuMedians, v -> String.format(Locale.ROOT, "%,.0f", v));
        section("CPU time of Valkey per job, µs (median of " + options.rounds
                + " rounds; contestants that use it; the drain only, the jobs were loaded before it)");
        table(valkeyCpuMedians, v -> String.format(Locale.ROOT, "%,.1f", v));
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
        if (options.peer) {
            ratio(ratios, "per-job ledger / BullMQ + pg", rates, "EchoMQ per-job, ledger", "BullMQ + pg, ledger");
            ratio(ratios, "batched ledger / BullMQ + pg", rates, "EchoMQ batched, ledger", "BullMQ + pg, ledger");
            ratio(ratios, "per-job no-op / BullMQ no-op", rates, "EchoMQ per-job, no-op", "BullMQ, no-op");
            ratio(ratios, "batched no-op / BullMQ no-op", rates, "EchoMQ batched, no-op", "BullMQ, no-op");
        }
        ratio(ratios, "per-job ledger / pgbench same SQL", rates, "EchoMQ per-job, ledger", "ceiling: pgbench, same SQL");
        ratio(ratios, "per-job ledger / PG transaction alone", rates, "EchoMQ per-job, ledger", "ceiling: PG transaction alone (per job)");
        ratio(ratios, "batched ledger / PG batch alone", rates, "EchoMQ batched, ledger", batchCeilingName());
        ratio(ratios, "per-job no-op / claim + complete pair", rates, "EchoMQ per-job, no-op", "ceiling: claim + complete pair alone");
        ratio(ratios, "batched no-op / complete-claim alone", rates, "EchoMQ batched, no-op", "ceiling: complete-claim alone (c jobs per call)");
        section("Ratios (same run, same concurrency)");
        table(ratios, v -> String.format(Locale.ROOT, "%.2f×", v));
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
     */
    private void latency(Map<String, List<Double>> rates) throws Exception {
        List<LatencyContestant> contestants = new ArrayList<>();
        contestants.add(new LatencyContestant("EchoMQ per-job, ledger",
                (c, untimed, jobs, rate) -> ours.latency(OurWorker.Mode.PER_JOB, OurWorker.Effect.LEDGER, c, untimed, jobs, rate)));
        contestants.add(new LatencyContestant("EchoMQ batched, ledger",
                (c, untimed, jobs, rate) -> ours.latency(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, c, untimed, jobs, rate)));
        if (options.peer) {
            contestants.add(new LatencyContestant("BullMQ + pg, ledger",
                    (c, untimed, jobs, rate) -> bullmq.latency(OurWorker.Effect.LEDGER, c, untimed, jobs, rate)));
        }
        contestants.removeIf(contestant -> !rates.containsKey(contestant.name()));
        Map<String, Double> offered = new LinkedHashMap<>();
        contestants.forEach(contestant -> offered.put(contestant.name(), halfOfBest(rates.get(contestant.name()))));
        warmUpLatency(contestants, rates, offered);
        Map<String, Map<Integer, List<Measurement>>> runs = new LinkedHashMap<>();
        for (int i = 0; i < options.concurrencies.size(); i++) {
            int concurrency = options.concurrencies.get(i);
            for (int round = 1; round <= options.rounds; round++) {
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
        section("Latency enqueue → effect committed, ms, p50 / p99, at half of each contestant's best throughput (open-loop "
                + "producer, " + options.latencySeconds + " s timed per run after " + options.latencyUntimedSeconds + " s untimed at the same "
                + "rate, median of " + options.rounds + " rounds; — : that "
                + "concurrency drains less than the offered rate)");
        concurrencyHeader("| contestant | offered jobs/s |", "|---|--:|");
        for (LatencyContestant contestant : contestants) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %s | %,.0f |", contestant.name(),
                    offered.get(contestant.name())));
            for (int concurrency : options.concurrencies) {
                List<Measurement> measured = runs.getOrDefault(contestant.name(), Map.of()).get(concurrency);
                row.append(measured == null ? " — |" : String.format(Locale.ROOT, " %.1f / %.1f |",
                        Stats.median(measured.stream().map(Measurement::p50Millis).toList()),
                        Stats.median(measured.stream().map(Measurement::p99Millis).toList())));
            }
            line(row.toString());
        }
    }

    /**
     * One unrecorded open-loop run of each contestant, three rounds long, at the concurrency that
     * drained fastest (which surely keeps up with half that rate; the lowest concurrency that
     * passed the drain test may not, open-loop, and would only build a backlog). Throughput runs
     * never send single jobs on a timer, so without it the first latency rounds also measure the
     * JIT compiling that path (measured, batched at c=64: C2 took 42 % of the JVM's CPU over the
     * first two 5-second runs, whose p50s were 2 to 25 times those of the fourth run on).
     */
    private void warmUpLatency(List<LatencyContestant> contestants, Map<String, List<Double>> rates, Map<String, Double> offered)
            throws Exception {
        for (LatencyContestant contestant : contestants) {
            List<Double> drained = rates.get(contestant.name());
            int concurrency = options.concurrencies.get(drained.indexOf(Collections.max(drained)));
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
        return (int) Math.round(rate * options.latencyUntimedSeconds);
    }

    /** The batched transaction's ceiling row, named for the batch size, so the ratio finds it. */
    private String batchCeilingName() {
        return "ceiling: PG transaction alone (batches of " + options.batchSize + ")";
    }

    /** Jobs for an open-loop run of {@code rounds} rounds' length at {@code rate}; at least 1,000, for a p99 worth the name. */
    private int latencyJobs(double rate, int rounds) {
        return (int) Math.max(1_000, rate * options.latencySeconds * rounds);
    }

    private static double halfOfBest(List<Double> byConcurrency) {
        return Collections.max(byConcurrency) / 2;
    }

    /** The latency rows at one given rate and concurrency, nothing else (for tuning; {@code --latency-rate}). */
    private void latencyAt(int concurrency, double rate) throws Exception {
        Map<String, List<Double>> fixed = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(List.of("EchoMQ per-job, ledger", "EchoMQ batched, ledger"));
        if (options.peer) {
            names.add("BullMQ + pg, ledger");
        }
        // One "best" of twice the rate at the given concurrency, so each row runs at exactly that rate and concurrency.
        names.removeIf(name -> !options.picks(name));
        names.forEach(name -> fixed.put(name, List.of(rate * 2)));
        options.concurrencies = List.of(concurrency);
        // In a full run the throughput rounds warm the worker up first; here a drain of each mode does (latency() then
        // warms the open-loop path itself).
        ours.drain(OurWorker.Mode.PER_JOB, OurWorker.Effect.LEDGER, concurrency, options.jobs / 4);
        ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, concurrency, options.jobs);
        latency(fixed);
    }

    @FunctionalInterface
    private interface LatencyRun {
        /** {@code untimed} jobs at {@code rate} to reach a steady state, then {@code jobs} timed ones. */
        Measurement run(int concurrency, int untimed, int jobs, double rate) throws Exception;
    }

    private record LatencyContestant(String name, LatencyRun run) {
    }

    private void depth() {
        QueueDepth depth = new QueueDepth(servers);
        claims(depth);
        QueueDepth.JobMemory m = depth.memory(options.memoryJobs);
        section("Valkey memory per job (" + String.format(Locale.ROOT, "%,d", m.jobs()) + " jobs, INFO memory deltas)");
        line(String.format(Locale.ROOT, "- pending: **%.0f bytes per job**", m.bytesPerPending()));
        line(String.format(Locale.ROOT, "- completed and retained (job hash + history + completed-set entry): **%.0f bytes per job** "
                + "(over the %,d jobs that retention kept)", m.bytesPerCompleted(), m.retained()));
        line(String.format(Locale.ROOT, "- MEMORY USAGE of the newest completed job: hash %d bytes, history list %d bytes",
                m.jobHashBytes(), m.historyBytes()));
    }

    private void heapAfter(int jobs) throws Exception {
        Measurement m = ours.drain(OurWorker.Mode.BATCHED, OurWorker.Effect.LEDGER, 16, jobs);
        System.gc();
        System.gc();
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        section("Worker JVM heap after " + String.format(Locale.ROOT, "%,d", jobs) + " jobs");
        line(String.format(Locale.ROOT, "- heap used after a full GC: **%.1f MiB** (the bench JVM: worker, driver and the "
                + "clients; the %,d jobs ran batched at %,.0f jobs/s)", used / 1048576.0, jobs, m.jobsPerSecond()));
    }

    private Map<String, List<Double>> chartLines(Map<String, List<Double>> rates) {
        Map<String, List<Double>> lines = new LinkedHashMap<>();
        for (String name : List.of("EchoMQ per-job, ledger", "EchoMQ batched, ledger", "BullMQ + pg, ledger", "BullMQ, no-op",
                "ceiling: pgbench, same SQL", "ceiling: PG transaction alone (per job)",
                "ceiling: claim + complete pair alone")) {
            if (rates.containsKey(name)) {
                lines.put(name, rates.get(name));
            }
        }
        return lines;
    }

    private void header() {
        section("Run");
        line("- started " + Instant.now() + ", " + Runtime.getRuntime().availableProcessors() + " cores, JVM "
                + System.getProperty("java.version") + ", max heap " + Runtime.getRuntime().maxMemory() / 1048576 + " MiB");
        line("- Valkey: " + servers.valkey.description());
        line("- PostgreSQL: " + servers.postgres.description() + "; " + servers.durability);
        line("- options: " + options);
    }

    private void section(String title) {
        line("");
        line("### " + title);
        line("");
    }

    private void table(Map<String, List<Double>> rows, java.util.function.DoubleFunction<String> format) {
        concurrencyHeader("| |", "|---|");
        rows.forEach((name, values) -> {
            StringBuilder row = new StringBuilder("| " + name + " |");
            values.forEach(v -> row.append(' ').append(format.apply(v)).append(" |"));
            line(row.toString());
        });
    }

    /** A table's header and rule: the leading columns given, then one right-aligned column per concurrency. */
    private void concurrencyHeader(String leadingHead, String leadingRule) {
        StringBuilder head = new StringBuilder(leadingHead);
        StringBuilder rule = new StringBuilder(leadingRule);
        for (int c : options.concurrencies) {
            head.append(" c=").append(c).append(" |");
            rule.append("--:|");
        }
        line(head.toString());
        line(rule.toString());
    }

    /** Claim latency against depth, then the claim with priorities, caps and rate limits against the plain one. */
    private void claims(QueueDepth depth) {
        section("Claim latency against queue depth (" + options.claimSamples + " claims of one job per depth, the depths in turn)");
        line("| pending jobs | claim p50 µs | claim p99 µs |");
        line("|--:|--:|--:|");
        for (QueueDepth.ClaimLatency c : depth.claimLatency(options.depths, options.claimSamples)) {
            line(String.format(Locale.ROOT, "| %,d | %.0f | %.0f |", c.pending(), c.p50Micros(), c.p99Micros()));
        }
        int pending = options.depths.size() > 1 ? options.depths.get(1) : options.depths.get(0);
        QueueDepth.LimitedClaim l = depth.claimWithLimits(pending, options.claimLanes, options.claimSamples);
        section(String.format(Locale.ROOT, "Claim with priorities, caps and rate limits (%,d pending over %,d lanes, %d claims of one "
                + "job from each queue in turn)", l.pending(), l.lanes(), options.claimSamples));
        line("| queue | claim p50 µs | claim p99 µs |");
        line("|---|--:|--:|");
        line(String.format(Locale.ROOT, "| plain | %.0f | %.0f |", l.plain().p50Micros(), l.plain().p99Micros()));
        line(String.format(Locale.ROOT, "| priorities 0-9, limits: %s | %.0f | %.0f |", l.limits(), l.limited().p50Micros(),
                l.limited().p99Micros()));
        line(String.format(Locale.ROOT, "- claim p99 with priorities and limits / plain: **%.2f×** (target: at most 1.20×)", l.p99Ratio()));
    }

    private void line(String text) {
        report.append(text).append('\n');
        System.out.println(text);
    }

    /** Command-line options; see bench/README.md. */
    private static final class Options {
        int rounds = 3;
        int jobs = 20_000;
        List<Integer> concurrencies = List.of(1, 4, 16, 64);
        List<Integer> depths = List.of(1_000, 100_000, 1_000_000);
        int claimSamples = 5_000;
        /** Lanes of the claim row with priorities and limits. */
        int claimLanes = 1_000;
        /** When set: only the claim latency sections. */
        boolean claimOnly;
        int memoryJobs = 100_000;
        int heapJobs = 100_000;
        int pgbenchSeconds = 5;
        int latencySeconds = 5;
        /** Seconds of untimed jobs at the offered rate before each latency run's timed ones. */
        double latencyUntimedSeconds = 2;
        /** Most jobs per transaction of the batched mode and of its ceiling; the worker's default unless --batch-size. */
        int batchSize = WorkerSettings.DEFAULT.batchSize();
        /** When set: only the latency rows, at this rate and the first concurrency. */
        double latencyRate;
        boolean peer = true;
        /** When set: only the soak, this many minutes per mode. */
        int soakMinutes;
        /** The soak's offered rates; 0: half of what a calibration drain reaches. */
        double soakPerJobRate;
        double soakBatchedRate;
        /** The soak's modes, in this order; both unless --soak-mode names one. */
        List<OurWorker.Mode> soakModes = List.of(OurWorker.Mode.values());
        /** Only the throughput of contestants whose name contains one of these (lower case; --only repeats), nothing else. */
        final List<String> only = new ArrayList<>();
        /** Where a full run writes its report; a smoke run (--quick) defaults to the build folder, not over the recorded one. */
        Path out;
        Path peerFolder = Path.of("bench", "bullmq");

        static Options parse(String[] args) {
            Options o = new Options();
            boolean quick = false;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--quick" -> {
                        quick = true;
                        o.rounds = 1;
                        o.jobs = 2_000;
                        o.depths = List.of(1_000, 10_000);
                        o.claimSamples = 500;
                        // Past the completed jobs retention keeps (10,000), as a full run's 100,000 are.
                        o.memoryJobs = 12_000;
                        o.heapJobs = 5_000;
                        o.pgbenchSeconds = 2;
                        o.latencySeconds = 2;
                        o.latencyUntimedSeconds = 1;
                    }
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--jobs" -> o.jobs = Integer.parseInt(args[++i]);
                    case "--concurrency" -> o.concurrencies = integers(args[++i]);
                    case "--depths" -> o.depths = integers(args[++i]);
                    case "--no-peer" -> o.peer = false;
                    case "--only" -> o.only.add(args[++i].toLowerCase(Locale.ROOT));
                    case "--out" -> o.out = Path.of(args[++i]);
                    case "--latency-rate" -> o.latencyRate = Double.parseDouble(args[++i]);
                    case "--latency-seconds" -> o.latencySeconds = Integer.parseInt(args[++i]);
                    case "--latency-untimed-seconds" -> o.latencyUntimedSeconds = Double.parseDouble(args[++i]);
                    case "--batch-size" -> o.batchSize = Integer.parseInt(args[++i]);
                    case "--soak" -> o.soakMinutes = Integer.parseInt(args[++i]);
                    case "--claim-only" -> o.claimOnly = true;
                    case "--soak-mode" -> o.soakModes = List.of(Soak.mode(args[++i]));
                    case "--soak-rate" -> {
                        List<Integer> rates = integers(args[++i]);
                        o.soakPerJobRate = rates.get(0);
                        o.soakBatchedRate = rates.get(rates.size() - 1);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + arg
                            + " (known: --quick, --rounds N, --jobs N, --concurrency 1,4,16,64, --depths 1000,100000, --no-peer, "
                            + "--only NAME-PART (repeatable), --latency-rate JOBS_PER_S, --latency-seconds N, --latency-untimed-seconds N, --batch-size N, --soak MINUTES, --soak-rate PER_JOB,BATCHED, --soak-mode per-job|batched, --claim-only, --out DIR)");
                }
            }
            if (o.out == null) {
                o.out = quick ? Path.of("bench", "target", "quick") : Path.of("bench", "results");
            }
            return o;
        }

        /** Whether a contestant runs: every one, unless --only names parts of the chosen ones. */
        boolean picks(String contestant) {
            String name = contestant.toLowerCase(Locale.ROOT);
            return only.isEmpty() || only.stream().anyMatch(name::contains);
        }

        private static List<Integer> integers(String csv) {
            return Arrays.stream(csv.split(",")).map(String::trim).map(Integer::parseInt).toList();
        }

        @Override
        public String toString() {
            return "rounds " + rounds + ", jobs " + jobs + ", concurrency " + concurrencies + ", depths " + depths
                    + ", claim samples " + claimSamples + ", pgbench " + pgbenchSeconds + " s, peer " + peer;
        }
    }
}
