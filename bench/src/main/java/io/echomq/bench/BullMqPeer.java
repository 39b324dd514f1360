package io.echomq.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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

    /** {@link OurWorker#latency}'s run for BullMQ: the first {@code untimed} of the jobs bring the new worker to a steady state. */
    Measurement latency(OurWorker.Effect effect, int concurrency, int untimed, int jobs, double rate) throws IOException, InterruptedException {
        return measure(effect, concurrency, untimed + jobs, "latency",
                List.of("--rate", Double.toString(rate), "--untimed-jobs", Integer.toString(untimed)));
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
        JsonObject result;
        try (JsonReader reader = Json.createReader(new StringReader(run(command, 1800)))) {
            result = reader.readObject();
        }
        version = result.getString("version", "?");
        if (result.getInt("duplicates") != 0 || result.getInt("missing") != 0) {
            throw new IllegalStateException("BullMQ run lost or doubled jobs: " + result);
        }
        boolean latency = mode.equals("latency");
        return new Measurement(jobs, number(result, "seconds"), latency ? number(result, "p50Ms") : Double.NaN,
                latency ? number(result, "p99Ms") : Double.NaN, Double.NaN, number(result, "valkeyCpuSeconds"));
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

    private static double number(JsonObject result, String key) {
        return result.getJsonNumber(key).doubleValue();
    }
}
