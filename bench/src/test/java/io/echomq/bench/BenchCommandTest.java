package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;

class BenchCommandTest {

    @Test
    void helpListsEveryOptionWithItsDefault() {
        StringWriter help = new StringWriter();
        CommandLine line = new CommandLine(new BenchCommand()).setOut(new PrintWriter(help));

        assertThat(line.execute("--help")).isZero();

        assertThat(help.toString().replaceAll("\\s+", " ")).contains("--quick", "--rounds=N", "default: 3; --quick: 1", "--jobs=N", "default: 20000",
                "--concurrency=C[,C...]", "default: 1,4,16,64", "--depths=N[,N...]", "default: 1000,100000,1000000", "--no-peer",
                "--batch-size=N", "default: the worker's, 100", "--only=NAME-PART", "--out=DIR", "default: bench/results",
                "--latency-rate=JOBS_PER_S", "--latency-seconds=N", "--latency-untimed-seconds=N", "--claim-only",
                "--soak=MINUTES", "--soak-rate=RATE[,RATE...]", "--soak-mode=per-job|batched");
    }

    @Test
    void aFullRunByDefault() {
        BenchOptions options = BenchCommand.parse();

        assertThat(options.rounds()).isEqualTo(3);
        assertThat(options.jobs()).isEqualTo(20_000);
        assertThat(options.concurrencies()).containsExactly(1, 4, 16, 64);
        assertThat(options.depths()).containsExactly(1_000, 100_000, 1_000_000);
        assertThat(options.peer()).isTrue();
        assertThat(options.out()).isEqualTo(Path.of("bench", "results"));
    }

    @Test
    void optionsGivenWinOverQuickDefaultsWhereverTheyStand() {
        BenchOptions options = BenchCommand.parse("--rounds", "2", "--quick", "--depths", "1000");

        assertThat(options.rounds()).isEqualTo(2);
        assertThat(options.depths()).containsExactly(1_000);
        assertThat(options.jobs()).isEqualTo(BenchCommand.QUICK_JOBS);
        assertThat(options.out()).isEqualTo(Path.of("bench", "target", "quick"));
    }

    @Test
    void theReadmeExamplesParse() {
        BenchOptions latency = BenchCommand.parse("--latency-rate", "7500", "--concurrency", "64", "--no-peer", "--only", "batched");
        BenchOptions profile = BenchCommand.parse("--rounds", "1", "--concurrency", "16", "--no-peer", "--only", "per-job, ledger",
                "--only", "pgbench");
        BenchOptions soak = BenchCommand.parse("--soak", "30", "--soak-mode", "batched", "--soak-rate", "909,8728", "--out", "x");

        assertThat(latency.latencyRate()).isEqualTo(7500);
        assertThat(latency.picks("EchoMQ batched, ledger")).isTrue();
        assertThat(latency.picks("EchoMQ per-job, ledger")).isFalse();
        assertThat(profile.only()).containsExactly("per-job, ledger", "pgbench");
        assertThat(soak.soakModes()).containsExactly(OurWorker.Mode.BATCHED);
        assertThat(List.of(soak.soakPerJobRate(), soak.soakBatchedRate())).containsExactly(909.0, 8728.0);
    }

    @Test
    void aBadValueNamesItsOption() {
        assertThatThrownBy(() -> BenchCommand.parse("--rounds", "0")).hasMessageContaining("--rounds");
        assertThatThrownBy(() -> BenchCommand.parse("--concurrency", "4,x")).hasMessageContaining("--concurrency");
        assertThatThrownBy(() -> BenchCommand.parse("--soak-mode", "fast")).hasMessageContaining("--soak-mode");
        assertThatThrownBy(() -> BenchCommand.parse("--rounds")).hasMessageContaining("--rounds");
        assertThatThrownBy(() -> BenchCommand.parse("--unknown")).hasMessageContaining("--unknown");
    }
}
