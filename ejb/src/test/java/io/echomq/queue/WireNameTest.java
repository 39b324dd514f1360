package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lab.CrashPoint;
import io.echomq.lab.GuaranteesLab;
import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.outbox.OutboxCommand;
import io.echomq.queue.schedule.Misfire;
import org.junit.jupiter.api.Test;

/**
 * The names the scripts store, Valkey keeps and the API and configuration accept. Renaming a
 * constant must not rename what is already stored or what clients send, so each is pinned here.
 */
class WireNameTest {

    @Test
    void everyConstantKeepsTheNameTheScriptsTheApiAndTheStoredDataUse() {
        assertThat(WireName.all(JobState.class)).containsExactly("pending", "delayed", "active", "completed", "dead", "cancelled",
                "waiting-children");
        assertThat(WireName.all(ChildFailure.class)).containsExactly("fail-parent", "run-parent", "drop");
        assertThat(WireName.all(FailureKind.class)).containsExactly("retryable", "permanent", "contended");
        assertThat(WireName.all(Dedupe.Mode.class)).containsExactly("debounce", "throttle");
        assertThat(WireName.all(Enqueued.Outcome.class)).containsExactly("created", "duplicate", "replaced", "throttled");
        assertThat(WireName.all(Misfire.class)).containsExactly("skip", "run-once", "run-each");
        assertThat(WireName.all(LimitsSource.class)).containsExactly("config", "api");
        assertThat(WireName.all(OutboxCommand.class)).containsExactly("retry", "drop");
        assertThat(WireName.all(GuaranteesLab.Mode.class)).containsExactly("at-most-once", "at-least-once", "effect-store");
        assertThat(WireName.all(CrashPoint.class)).containsExactly("lease", "effect", "ack", "done");
    }

    @Test
    void aWireNameFindsItsConstantAndNothingElseDoes() {
        assertThat(WireName.find(Misfire.class, "run-once")).contains(Misfire.RUN_ONCE);
        assertThat(WireName.find(Misfire.class, "RUN_ONCE")).as("the Java name is not a wire name").isEmpty();
        assertThat(WireName.find(JobState.class, null)).isEmpty();
    }
}
