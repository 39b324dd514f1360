package io.echomq.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.outbox.OutboxRelay.RetryPolicy;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** How long a refused outbox row is put off, and when it is dead. */
class OutboxRetryPolicyTest {

    @Test
    void theDefaultDoublesFromOneSecondToFiveMinutesAndGivesUpAtTheTenthRefusal() {
        RetryPolicy policy = RetryPolicy.DEFAULT;

        assertThat(IntStream.rangeClosed(1, 10).mapToObj(policy::backoffAfter).map(Duration::toSeconds))
                .containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 300L);
        assertThat(policy.isLast(9)).isFalse();
        assertThat(policy.isLast(10)).isTrue();
        // Backoffs before the last refusal: what a row gets before it is dead.
        long ms = IntStream.rangeClosed(1, 9).mapToLong(n -> policy.backoffAfter(n).toMillis()).sum();
        assertThat(Duration.ofMillis(ms)).isBetween(Duration.ofMinutes(8), Duration.ofMinutes(9));
    }

    @Test
    void aLongRunOfRefusalsStaysAtTheCap() {
        assertThat(RetryPolicy.DEFAULT.backoffAfter(1_000)).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void impossiblePoliciesAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO)).hasMessageStartingWith("maxRefusals");
        assertThatThrownBy(() -> new RetryPolicy(3, Duration.ofMinutes(2), Duration.ofMinutes(1))).hasMessageContaining("maxBackoff");
    }
}
