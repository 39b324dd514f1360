package io.echomq.web.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Password guessing is slowed per user name and per address, and only for the window. */
class SignInThrottleTest {

    private final MovableClock clock = new MovableClock();
    private final SignInThrottle throttle = new SignInThrottle(clock);

    @Test
    void aUserIsHeldBackAfterFiveFailuresUntilTheOldestLeavesTheWindow() {
        for (int i = 0; i < SignInThrottle.MAX_PER_USER; i++) {
            assertThat(throttle.waitBeforeTrying("ops", "10.0.0." + i)).as("attempt %d", i + 1).isEmpty();
            throttle.failed("ops", "10.0.0." + i);
            clock.advance(Duration.ofMinutes(1));
        }

        assertThat(throttle.waitBeforeTrying("ops", "10.0.0.99")).as("from a fresh address too")
                .hasValue(SignInThrottle.WINDOW.minus(Duration.ofMinutes(SignInThrottle.MAX_PER_USER)));
        assertThat(throttle.waitBeforeTrying("alice", "10.0.0.99")).as("another user").isEmpty();

        clock.advance(SignInThrottle.WINDOW.minus(Duration.ofMinutes(SignInThrottle.MAX_PER_USER)));
        assertThat(throttle.waitBeforeTrying("ops", "10.0.0.99")).as("the oldest failure has left the window").isEmpty();
    }

    @Test
    void anAddressIsHeldBackAfterTwentyFailuresWhateverTheNames() {
        for (int i = 0; i < SignInThrottle.MAX_PER_ADDRESS; i++) {
            throttle.failed("guess-" + i, "192.0.2.7");
        }

        assertThat(throttle.waitBeforeTrying("ops", "192.0.2.7")).hasValue(SignInThrottle.WINDOW);
        assertThat(throttle.waitBeforeTrying("ops", "192.0.2.8")).isEmpty();
    }

    @Test
    void aSuccessClearsTheUsersCountButNotTheAddresss() {
        for (int i = 0; i < SignInThrottle.MAX_PER_USER - 1; i++) {
            throttle.failed("ops", "192.0.2.9");
        }
        throttle.succeeded("ops");
        throttle.failed("ops", "192.0.2.9");

        assertThat(throttle.waitBeforeTrying("ops", "192.0.2.9")).isEmpty();
        for (int i = 0; i < SignInThrottle.MAX_PER_ADDRESS - SignInThrottle.MAX_PER_USER; i++) {
            throttle.failed("other-" + i, "192.0.2.9");
        }
        assertThat(throttle.waitBeforeTrying("ops", "192.0.2.9")).as("the address reached its limit").isPresent();
    }

    private static final class MovableClock extends Clock {
        private Instant now = Instant.parse("2026-12-05T10:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
