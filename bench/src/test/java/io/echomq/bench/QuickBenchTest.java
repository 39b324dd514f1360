package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench as a user runs it, small: {@code bench/run --quick --no-peer} on the test harness's
 * Valkey and PostgreSQL (pgbench from PATH, as bench/run needs it), to the end. A bench that
 * breaks anywhere, in any section, fails the build instead of the next person who runs it.
 * It asserts what was written, never a figure: timings on a shared machine prove nothing.
 */
class QuickBenchTest {

    @Test
    void aQuickRunFinishesAndWritesAReportWithEverySection(@TempDir Path out) throws Exception {
        BenchOptions options = BenchCommand.parse("--quick", "--no-peer", "--out", out.toString());

        Path report = new BenchRun(options, Servers.start()).run();

        assertThat(report).isEqualTo(out.resolve("report.md"));
        assertThat(Files.readString(report)).contains(
                "### Run",
                "### Throughput, jobs/s",
                "| ceiling: pgbench, same SQL |",
                "| EchoMQ batched flows of 1+10, ledger |",
                "| batched flows of 1+10 / batched plain jobs, ledger |",
                "| ceiling: PG transaction alone (batches of 100) |",
                "### CPU time of the bench JVM per job",
                "### CPU time of Valkey per job",
                "### Ratios (same run, same concurrency)",
                "### Latency enqueue → effect committed",
                "### Claim latency against queue depth",
                "### Claim with priorities, caps and rate limits",
                "### Valkey memory per job",
                "### Worker JVM heap after");
        assertThat(out.resolve("throughput.png")).isNotEmptyFile();
    }
}
