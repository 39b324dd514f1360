package io.echomq.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * BullMQ on the same Valkey and PostgreSQL, with the same effect (bench/bullmq/run.mjs): installed
 * from npm on first use ({@code npm ci}), run as a child process that prints one JSON line.
 */
final class BullMqPeer {

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final Servers servers;
    private final Path folder;
    private String version = "?";

    BullMqPeer(Servers servers, Path folder) {
        this.servers = servers;
        this.folder = folder;
    }

    void install() throws IOException, InterruptedException {
        run(List.of("npm", "ci", "--no-audit", "--no-fund"), 600);
    }

    String version() {
        return version;
    }

    Measurement drain(OurWorker.Effect effect, int concurrency, int jobs) throws IOException, InterruptedException {
        return measure(effect, concurrency, jobs, "drain", List.of());
    }

    Measurement latency(OurWorker.Effect effect, int concurrency, int jobs, double rate) throws IOException, InterruptedException {
        return measure(effect, concurrency, jobs, "latency", List.of("--rate", Double.toString(rate)));
    }

    private Measurement measure(OurWorker.Effect effect, int concurrency, int jobs, String mode, List<String> extra)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("node", "run.mjs",
                "--redis", servers.valkey.url() + "/0",
                "--pg", servers.postgresUrl(),
                "--queue", "bullmq-" + mode + "-" + effect.name().toLowerCase() + "-c" + concurrency + "-" + RUNS.incrementAndGet(),
                "--jobs", Integer.toString(jobs),
                "--concurrency", Integer.toString(concurrency),
                "--effect", effect.name().toLowerCase(),
                "--mode", mode));
        command.addAll(extra);
        String line = run(command, 1800);
        version = text(line, "version");
        if (number(line, "duplicates") != 0 || number(line, "missing") != 0) {
            throw new IllegalStateException("BullMQ run lost or doubled jobs: " + line);
        }
        boolean latency = mode.equals("latency");
        return new Measurement(jobs, number(line, "seconds"), latency ? number(line, "p50Ms") : Double.NaN,
                latency ? number(line, "p99Ms") : Double.NaN);
    }

    /** Runs a command in the peer's folder; returns the last line of its stdout (stderr is passed through). */
    private String run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(folder.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue() + ": " + output);
        }
        String[] lines = output.split("\n");
        return lines[lines.length - 1];
    }

    private static double number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(-?[0-9.eE+-]+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + key + " in " + json);
        }
        return Double.parseDouble(m.group(1));
    }

    private static String text(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":\"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : "?";
    }
}
