package io.echomq.testkit.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.ServiceUnavailableException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ServiceDiscoveryTest {

    @Test
    void theFirstSourceThatStartsWins() {
        String started = ServiceDiscovery.firstThatStarts("Thing", "No Thing.", "THING_URL: not set", List.of(
                new ServiceDiscovery.Source<>("absent", () -> {
                    throw new SourceUnavailable("not installed");
                }),
                new ServiceDiscovery.Source<>("present", () -> "second"),
                new ServiceDiscovery.Source<>("never asked", () -> "third")), List.of("fix"));

        assertThat(started).isEqualTo("second");
    }

    @Test
    void whenNothingStartsTheFailureListsWhatWasTriedAndHowToFixIt() {
        IllegalStateException crash = new IllegalStateException("exited before answering PING");

        assertThatThrownBy(() -> ServiceDiscovery.firstThatStarts("Thing", "No Thing for the tests.", "THING_URL: not set",
                List.<ServiceDiscovery.Source<String>>of(
                        new ServiceDiscovery.Source<>("docker", () -> {
                            throw new SourceUnavailable("no Docker engine");
                        }),
                        new ServiceDiscovery.Source<>("thing-server on PATH", () -> {
                            throw crash;
                        })), List.of("set THING_URL", "install thing-server")))
                .isInstanceOf(ServiceUnavailableException.class)
                .hasCause(crash)
                .hasMessageStartingWith("No Thing for the tests.")
                .hasMessageContaining("1. THING_URL: not set")
                .hasMessageContaining("2. docker: no Docker engine")
                .hasMessageContaining("3. thing-server on PATH: FAILED: exited before answering PING")
                .hasMessageContaining("- set THING_URL")
                .hasMessageContaining("- install thing-server");
    }

    @Test
    void aGivenServerIsFinalAndNothingElseIsTried() throws Exception {
        List<String> asked = new java.util.ArrayList<>();

        String found = ServiceDiscovery.inOrder("Thing", "No Thing.", Optional.of(() -> "given"), "THING_URL: not set",
                new ServiceDiscovery.Source<>("container", () -> asked.add("container") ? "container" : ""),
                List.of(new ServiceDiscovery.Source<>("child", () -> asked.add("child") ? "child" : "")), List.of());

        assertThat(found).isEqualTo("given");
        assertThat(asked).isEmpty();
    }

    @Test
    void withoutAGivenServerAContainerIsTriedOnlyWithDockerAndBeforeChildProcesses() throws Exception {
        List<String> asked = new java.util.ArrayList<>();
        boolean docker = DockerEngine.availability().available();

        String found = ServiceDiscovery.inOrder("Thing", "No Thing.", Optional.empty(), "THING_URL: not set",
                new ServiceDiscovery.Source<>("container", () -> {
                    asked.add("container");
                    return "container";
                }),
                List.of(new ServiceDiscovery.Source<>("child", () -> {
                    asked.add("child");
                    return "child";
                })), List.of());

        assertThat(found).isEqualTo(docker ? "container" : "child");
        assertThat(asked).containsExactly(docker ? "container" : "child");
    }

    @Test
    void dockerIsNotAskedAboutWithoutAnySignOfAnEngine() {
        long start = System.nanoTime();
        DockerEngine.Availability docker = DockerEngine.availability();
        long millis = (System.nanoTime() - start) / 1_000_000;

        if (!docker.available()) {
            assertThat(docker.explanation()).isNotBlank();
            assertThat(millis).isLessThan(1000);
        }
    }
}
