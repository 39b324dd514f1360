package io.echomq.bench;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;

/**
 * The benchmark's entry point, run by {@code bench/run}: reads the command line
 * ({@link BenchCommand}), runs the bench ({@link BenchRun}), which writes {@code report.md} and
 * {@code throughput.png} into the output folder and prints the report.
 */
public final class Bench {

    /** Held so the settings stick: the JDK keeps loggers only weakly. */
    private static final List<Logger> QUIETED = List.of(Logger.getLogger("com.zaxxer.hikari"), Logger.getLogger("io.echomq"),
            Logger.getLogger("org.flywaydb"));

    private Bench() {
    }

    public static void main(String[] args) {
        // Pool and worker start/stop lines would bury the figures; warnings still show.
        QUIETED.forEach(l -> l.setLevel(Level.WARNING));
        int exitCode = new CommandLine(new BenchCommand()).execute(args);
        // The harness's servers are child processes; its shutdown hook stops them.
        System.exit(exitCode);
    }
}
