package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchReportTest {

    /** The full run of 2026-12-05 14:59: Valkey's used_memory fell over the section while it kept 10,000 completed jobs. */
    @Test
    void aMemoryDeltaThatDidNotGrowIsNotReportedAsBytesPerJob(@TempDir Path dir) throws Exception {
        BenchReport report = new BenchReport();

        report.memory(new QueueDepth.JobMemory(100_000, 500, 10_000, -2_706, 336, 240));

        String markdown = Files.readString(report.writeTo(dir.resolve("report.md")));
        assertThat(markdown).contains("- pending: **500 bytes per job**")
                .contains("- completed and retained (job hash + history + completed-set entry): not measured")
                .doesNotContain("**-2706 bytes per job**");
    }
}
