package io.echomq.bench;

import io.echomq.worker.WorkerSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * The bench's command line (bench/README.md): every option with its default in {@code --help};
 * {@code --quick} scales the defaults down, and an option given wins over them, wherever it
 * stands. Reading it yields a checked {@link BenchOptions}; running it runs the bench.
 */
@Command(name = "bench/run", sortOptions = false, usageHelpWidth = 120, defaultValueProvider = BenchCommand.WorkerDefaults.class,
        description = {"EchoMQ side by side with its ceilings and with BullMQ, on one Valkey and one PostgreSQL, in one run.",
            "Tables show medians of the rounds and ratios within the run; see bench/README.md.%n"})
final class BenchCommand implements Callable<Integer> {

    // A full run's defaults and a quick run's, as constants: the help states them.
    static final int ROUNDS = 3, QUICK_ROUNDS = 1;
    static final int JOBS = 20_000, QUICK_JOBS = 2_000;
    static final String CONCURRENCIES = "1,4,16,64";
    static final String DEPTHS = "1000,100000,1000000", QUICK_DEPTHS = "1000,10000";
    static final int LATENCY_SECONDS = 5, QUICK_LATENCY_SECONDS = 2;
    static final String LATENCY_UNTIMED_SECONDS = "2", QUICK_LATENCY_UNTIMED_SECONDS = "1";
    static final String OUT = "bench/results", QUICK_OUT = "bench/target/quick";
    static final int CLAIM_LANES = 1_000;

    /** What --quick scales down besides the options. */
    private record Scale(int claimSamples, int memoryJobs, int heapJobs, int pgbenchSeconds) {

        static final Scale FULL = new Scale(5_000, 100_000, 100_000, 5);
        /**
         * Memory over more jobs than the completed retention keeps (10,000 by default), as a full
         * run's: the quick run then measures through the same trimming, which once broke the full run.
         */
        static final Scale QUICK = new Scale(500, 12_000, 5_000, 2);
    }

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help and exit.")
    boolean help;

    @Option(names = "--quick", description = "A smoke run of about 2 minutes: the smaller defaults each option names, fewer claims, "
            + "memory and heap jobs, shorter pgbench runs. Options given win over them.")
    boolean quick;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "" + ROUNDS,
            description = "Rounds of every measurement, interleaved contestant after contestant (default: ${DEFAULT-VALUE}; --quick: "
                    + QUICK_ROUNDS + ").")
    int rounds;

    @Option(names = "--jobs", paramLabel = "N", defaultValue = "" + JOBS,
            description = "Jobs per throughput run (default: ${DEFAULT-VALUE}; --quick: " + QUICK_JOBS + ").")
    int jobs;

    @Option(names = "--concurrency", paramLabel = "C", split = ",", defaultValue = CONCURRENCIES,
            description = "Worker concurrencies of the throughput and latency tables (default: ${DEFAULT-VALUE}).")
    List<Integer> concurrencies;

    @Option(names = "--depths", paramLabel = "N", split = ",", defaultValue = DEPTHS,
            description = "Pending jobs of the claim-latency rows (default: ${DEFAULT-VALUE}; --quick: " + QUICK_DEPTHS + ").")
    List<Integer> depths;

    @Option(names = "--no-peer", description = "Skip BullMQ (then Node.js and npm are not needed).")
    boolean noPeer;

    @Option(names = "--batch-size", paramLabel = "N",
            description = "Most jobs per transaction of the batched mode and of its PostgreSQL ceiling (default: the worker's, "
                    + "${DEFAULT-VALUE}).")
    int batchSize;

    @Option(names = "--only", paramLabel = "NAME-PART",
            description = "Only the throughput of the contestants whose name contains this (any case); repeat it to pick several. "
                    + "Each chosen contestant first runs once, not counted.")
    List<String> only = new ArrayList<>();

    @Option(names = "--out", paramLabel = "DIR",
            description = "Where the report goes (default: " + OUT + "; --quick: " + QUICK_OUT + ").")
    Path out;

    @Option(names = "--latency-rate", paramLabel = "JOBS_PER_S", defaultValue = "0",
            description = "Only the latency rows, at this rate and the first --concurrency, --rounds times, after a warm-up drain; "
                    + "--only picks the rows (default: ${DEFAULT-VALUE}: every section).")
    double latencyRate;

    @Option(names = "--latency-seconds", paramLabel = "N", defaultValue = "" + LATENCY_SECONDS,
            description = "Timed seconds of each latency run (default: ${DEFAULT-VALUE}; --quick: " + QUICK_LATENCY_SECONDS + ").")
    int latencySeconds;

    @Option(names = "--latency-untimed-seconds", paramLabel = "N", defaultValue = LATENCY_UNTIMED_SECONDS,
            description = "Seconds of jobs sent at the same rate before each latency run's timed ones, not timed "
                    + "(default: ${DEFAULT-VALUE}; --quick: " + QUICK_LATENCY_UNTIMED_SECONDS + ").")
    double latencyUntimedSeconds;

    @Option(names = "--claim-only", description = "Only the claim-latency sections (report in claims.md).")
    boolean claimOnly;

    @Option(names = "--soak", paramLabel = "MINUTES", defaultValue = "0",
            description = "Only the soak, this many minutes per mode (default: ${DEFAULT-VALUE}: no soak).")
    int soakMinutes;

    @Option(names = "--soak-rate", paramLabel = "RATE", split = ",",
            description = "The soak's offered rates, jobs/s: per-job,batched, or one for both (default: half of what a calibration "
                    + "drain reaches).")
    List<Double> soakRates = new ArrayList<>();

    @Option(names = "--soak-mode", paramLabel = "per-job|batched",
            description = "The soak's one mode (default: per-job, then batched).")
    String soakMode;

    /** The options of {@code args}, checked; for a caller that runs the bench itself (its test). */
    static BenchOptions parse(String... args) {
        BenchCommand command = new BenchCommand();
        CommandLine line = new CommandLine(command);
        return command.options(line.parseArgs(args));
    }

    @Override
    public Integer call() throws Exception {
        new BenchRun(options(spec.commandLine().getParseResult()), Servers.start()).run();
        return 0;
    }

    /** The options as given, with --quick's defaults for those not given, each checked: a bad one names itself. */
    BenchOptions options(ParseResult given) {
        Scale scale = quick ? Scale.QUICK : Scale.FULL;
        return new BenchOptions(
                atLeast("--rounds", quickUnless(given, "--rounds", rounds, QUICK_ROUNDS), 1),
                atLeast("--jobs", quickUnless(given, "--jobs", jobs, QUICK_JOBS), 1),
                allAtLeast("--concurrency", concurrencies, 1),
                allAtLeast("--depths", quick && !given.hasMatchedOption("--depths") ? integers(QUICK_DEPTHS) : depths, 1),
                scale.claimSamples(),
                claimOnly,
                scale.memoryJobs(),
                scale.heapJobs(),
                scale.pgbenchSeconds(),
                atLeast("--latency-seconds", quickUnless(given, "--latency-seconds", latencySeconds, QUICK_LATENCY_SECONDS), 1),
                atLeast("--latency-untimed-seconds", quick && !given.hasMatchedOption("--latency-untimed-seconds")
                        ? Double.parseDouble(QUICK_LATENCY_UNTIMED_SECONDS) : latencyUntimedSeconds, 0),
                atLeast("--batch-size", batchSize, 1),
                atLeast("--latency-rate", latencyRate, 0),
                !noPeer,
                atLeast("--soak", soakMinutes, 0),
                soakRates.isEmpty() ? 0 : atLeast("--soak-rate", soakRates.get(0), 1),
                soakRates.isEmpty() ? 0 : atLeast("--soak-rate", soakRates.get(soakRates.size() - 1), 1),
                soakModes(),
                only,
                out != null ? out : Path.of(quick ? QUICK_OUT : OUT));
    }

    private int quickUnless(ParseResult given, String option, int value, int quickValue) {
        return quick && !given.hasMatchedOption(option) ? quickValue : value;
    }

    private List<OurWorker.Mode> soakModes() {
        if (soakMode == null) {
            return List.of(OurWorker.Mode.values());
        }
        try {
            return List.of(Soak.mode(soakMode));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private int atLeast(String option, int value, int least) {
        if (value < least) {
            throw new ParameterException(spec.commandLine(), option + " must be at least " + least + ", was " + value);
        }
        return value;
    }

    private double atLeast(String option, double value, double least) {
        if (value < least) {
            throw new ParameterException(spec.commandLine(), option + " must be at least " + least + ", was " + value);
        }
        return value;
    }

    private List<Integer> allAtLeast(String option, List<Integer> values, int least) {
        values.forEach(value -> atLeast(option, value, least));
        return values;
    }

    private static List<Integer> integers(String csv) {
        return java.util.Arrays.stream(csv.split(",")).map(Integer::valueOf).toList();
    }

    /** The defaults that are the engine's own, stated by the engine rather than copied here. */
    static final class WorkerDefaults implements CommandLine.IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec argument) {
            if (argument instanceof OptionSpec option && option.longestName().equals("--batch-size")) {
                return Integer.toString(WorkerSettings.DEFAULT.batchSize());
            }
            return null;
        }
    }
}
