package io.echomq.model;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Spin and gcc as the model check uses them: {@link #build} turns the model, with a set of
 * {@code -D} switches, into a verifier ({@code pan}) in a folder of its own; {@link #run} runs it.
 */
final class Spin {

    /** No check may hang the build: the largest run takes about a minute of one core. */
    private static final long TIMEOUT_MINUTES = 10;

    /**
     * COLLAPSE: lossless state compression, which keeps the largest run under about a gigabyte.
     * The search stays exhaustive: every state is stored whole (no bitstate, no hash compaction).
     */
    private static final List<String> GCC = List.of("gcc", "-O2", "-DVECTORSZ=1024", "-DCOLLAPSE");

    private final Path model;
    private final Path work;

    Spin(Path model, Path work) {
        this.model = model;
        this.work = work;
    }

    /** Whether the {@code spin} command answers; the check needs it and gcc. */
    static boolean installed() {
        try {
            Process spin = new ProcessBuilder("spin", "-V").redirectErrorStream(true).start();
            spin.getInputStream().readAllBytes();
            return spin.waitFor(1, TimeUnit.MINUTES) && spin.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Builds the verifier of the model under these switches into {@code work/name}: with the
     * model's LTL formulas as never claims to choose from, or, for the safety run, none
     * ({@code -DNOCLAIM}: only the model's assertions and end states are checked).
     */
    Path build(String name, List<String> defines, boolean withClaims) {
        Path folder = work.resolve(name);
        try {
            Files.createDirectories(folder);
            Files.copy(model, folder.resolve(model.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> spin = new ArrayList<>(List.of("spin", "-a"));
        spin.addAll(defines);
        spin.add(model.getFileName().toString());
        exec(folder, spin, "spin.log", true);
        List<String> gcc = new ArrayList<>(GCC);
        if (!withClaims) {
            gcc.add("-DNOCLAIM");
        }
        gcc.addAll(List.of("-o", "pan", "pan.c"));
        exec(folder, gcc, "gcc.log", true);
        return folder;
    }

    /** Runs the verifier built in {@code folder} with these arguments; its output goes to {@code log}. */
    PanResult run(Path folder, List<String> args, String log) {
        List<String> pan = new ArrayList<>(List.of("./pan"));
        pan.addAll(args);
        long start = System.nanoTime();
        String output = exec(folder, pan, log, false);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return PanResult.parse(output, folder.resolve(model.getFileName() + ".trail"), millis);
    }

    /**
     * Runs a command to its end, its output kept in {@code folder/log}, and returns that output.
     * With {@code mustSucceed}, a non-zero exit fails with it (pan itself exits non-zero when it
     * found an error, which its output reports).
     */
    private static String exec(Path folder, List<String> command, String log, boolean mustSucceed) {
        Path out = folder.resolve(log);
        try {
            Process process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " ran past " + TIMEOUT_MINUTES + " minutes in " + folder);
            }
            String output = Files.readString(out, StandardCharsets.UTF_8);
            if (mustSucceed && process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (exit " + process.exitValue() + ") in " + folder
                        + ":\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command.get(0) + " in " + folder, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.get(0), e);
        }
    }
}
