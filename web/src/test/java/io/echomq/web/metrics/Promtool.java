package io.echomq.web.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.echomq.testkit.services.RequiredTool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus's {@code promtool} as the ops tests run it: a child process in a folder, its output
 * printed to the build log line by line ({@code promtool: …}) and returned with its exit code.
 */
final class Promtool {

    private static final long TIMEOUT_SECONDS = 120;

    record Result(int exitCode, String output) {
    }

    private Promtool() {
    }

    /**
     * Fails the test when promtool is missing under {@code CI=true} (CI installs it), and skips
     * it with the reason otherwise.
     */
    static void requireInstalled() {
        RequiredTool.require("promtool", "promtool is not installed (Debian: apt-get install --no-install-recommends prometheus); "
                + "the alerting rules cannot be checked");
    }

    /** Runs {@code promtool args…} in {@code folder}, which must exit 0 and say SUCCESS; its output. */
    static String assertSucceeds(Path folder, String... args) {
        requireInstalled();
        Result result = run(folder, args);
        assertThat(result.exitCode()).as("promtool %s:%n%s", String.join(" ", args), result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS");
        return result.output();
    }

    /** Runs {@code promtool args…} in {@code folder} to its end. */
    static Result run(Path folder, String... args) {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail(String.join(" ", command) + " ran past " + TIMEOUT_SECONDS + " s");
            }
            System.out.println("promtool: $ " + String.join(" ", command) + "   (in " + folder.getFileName() + "/)");
            output.lines().forEach(line -> System.out.println("promtool: " + line));
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }
}
