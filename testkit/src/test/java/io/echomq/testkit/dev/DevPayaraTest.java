package io.echomq.testkit.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Payara Micro command line bin/echomq-dev runs: the tests' launcher's, for the WAR on a fixed port. */
class DevPayaraTest {

    @Test
    void theWarRunsAtEchomqOnTheGivenPortWithHttpOnLoopbackAndHazelcastOff(@TempDir Path folder) throws Exception {
        Path war = Files.writeString(folder.resolve("echomq.war"), "not really a war");
        Path run = folder.resolve("payara");

        List<String> command = DevPayara.commandLine(new String[] {"--war", war.toString(), "--port", "18080", "--dir", run.toString()});

        assertThat(command.get(command.indexOf("-jar") + 1)).matches(".*/payara-micro-[^/]+\\.jar");
        assertThat(command).containsSubsequence("--deploy", war.toAbsolutePath().toString())
                .containsSubsequence("--contextroot", "echomq")
                .containsSubsequence("--port", "18080")
                .contains("--nocluster");
        Path preboot = Path.of(command.get(command.indexOf("--prebootcommandfile") + 1));
        assertThat(preboot).startsWith(run.toAbsolutePath());
        assertThat(Files.readAllLines(preboot)).anySatisfy(line -> assertThat(line).contains("http-listener.address=127.0.0.1"))
                .anySatisfy(line -> assertThat(line).contains("hazelcast-config-specific-configuration.enabled=false"));
    }

    @Test
    void aMissingSettingIsNamed(@TempDir Path folder) {
        assertThatThrownBy(() -> DevPayara.commandLine(new String[] {"--war", "x.war", "--dir", folder.toString()}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--port");
        assertThatThrownBy(() -> DevPayara.commandLine(new String[] {"--war", "x.war", "--port", "0", "--dir", folder.toString()}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--port");
    }

    @Test
    void aWarThatIsNotThereFailsSayingHowToBuildIt(@TempDir Path folder) {
        assertThatThrownBy(() -> DevPayara.commandLine(new String[] {
                "--war", folder.resolve("missing.war").toString(), "--port", "18080", "--dir", folder.toString()}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no archive at");
    }
}
