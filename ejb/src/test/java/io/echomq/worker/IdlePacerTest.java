package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When a worker's next turn may go to Valkey: no servers, times passed in. */
class IdlePacerTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Duration IDLE_POLL = Duration.ofMillis(200);
    private static final Duration LINGER = Duration.ofMillis(5);

    @Test
    void anEmptyQueueIsAskedLessAndLessOftenUpToTheIdlePoll() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, 0);
        long now = 0;
        long[] waits = new long[10];
        for (int i = 0; i < waits.length; i++) {
            pacer.claimed(now, 1, 0, 0);
            waits[i] = pacer.nanosUntilDue(now);
            now += waits[i];
            assertThat(pacer.turnDue(now, false)).isTrue();
        }
        assertThat(waits).startsWith(1 * MS, 2 * MS, 4 * MS, 8 * MS);
        assertThat(waits[waits.length - 1]).isEqualTo(IDLE_POLL.toNanos());
    }

    @Test
    void onceTheWaitsReachTheIdlePollClaimsTakeIdleTurnsAndWaitForTheTurnBooked() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, 0);
        long now = 0;
        while (pacer.idleTurn().isZero()) {
            pacer.claimed(now, 1, 0, 0);
            now += pacer.nanosUntilDue(now);
        }
        assertThat(pacer.idleTurn()).isEqualTo(IDLE_POLL);
        long booked = 3 * IDLE_POLL.toNanos();
        pacer.claimed(now, 1, 0, booked);
        assertThat(pacer.turnDue(now + booked - 1, false)).isFalse();
        assertThat(pacer.turnDue(now + booked, false)).isTrue();
        pacer.claimed(now + booked, 1, 1, 0);
        assertThat(pacer.idleTurn()).isZero();
    }

    @Test
    void findingWorkMakesTheNextTurnDueAtOnceAndResetsTheWait() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, 0);
        for (int i = 0; i < 5; i++) {
            pacer.claimed(0, 1, 0, 0);
        }
        pacer.claimed(0, 1, 1, 0);
        assertThat(pacer.turnDue(0, false)).isTrue();
        pacer.claimed(0, 1, 0, 0);
        assertThat(pacer.nanosUntilDue(0)).isEqualTo(IdlePacer.FIRST_IDLE_WAIT_NANOS);
    }

    @Test
    void acknowledgementsWaitingMakeATurnDueWhileTheQueueIsIdle() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, 0);
        pacer.claimed(0, 1, 0, 0);
        assertThat(pacer.turnDue(0, false)).isFalse();
        assertThat(pacer.turnDue(0, true)).isTrue();
    }

    @Test
    void aTurnThatAskedForNoJobsDoesNotPace() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, 0);
        pacer.claimed(0, 0, 0, 0);
        assertThat(pacer.turnDue(0, false)).isTrue();
    }

    @Test
    void afterValkeyFailedNoTurnGoesForAnIdlePollEvenWithAcknowledgementsWaiting() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, 0);
        pacer.valkeyFailed(0);
        assertThat(pacer.turnDue(IDLE_POLL.toNanos() - 1, true)).isFalse();
        assertThat(pacer.turnDue(IDLE_POLL.toNanos(), true)).isTrue();
    }

    @Test
    void aClaimThatFoundTheQueueCaughtUpWaitsTheLingerBeforeTheNext() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, LINGER, 0);
        pacer.claimed(0, 300, 7, 0);
        assertThat(pacer.turnDue(LINGER.toNanos() - 1, false)).isFalse();
        assertThat(pacer.nanosUntilDue(0)).isEqualTo(LINGER.toNanos());
        assertThat(pacer.turnDue(LINGER.toNanos(), false)).isTrue();
    }

    @Test
    void acknowledgementsWaitForTheLingerInsteadOfClaimingTheFewJobsThatArrivedMeanwhile() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, LINGER, 0);
        pacer.claimed(0, 300, 7, 0);
        assertThat(pacer.turnDue(1, true)).isFalse();
        assertThat(pacer.turnDue(LINGER.toNanos(), true)).isTrue();
    }

    @Test
    void aFullClaimMeansABacklogAndTheNextTurnIsDueAtOnce() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, LINGER, 0);
        pacer.claimed(0, 300, 7, 0);
        pacer.claimed(LINGER.toNanos(), 300, 300, 0);
        assertThat(pacer.turnDue(LINGER.toNanos(), false)).isTrue();
    }

    @Test
    void theFirstJobAfterAnIdleSpellMeetsTheIdleWaitAloneNotTheLinger() {
        IdlePacer lingering = new IdlePacer(IDLE_POLL, LINGER, 0);
        IdlePacer plain = new IdlePacer(IDLE_POLL, 0);
        for (int i = 0; i < 3; i++) {
            lingering.claimed(0, 100, 0, 0);
            plain.claimed(0, 100, 0, 0);
        }
        assertThat(lingering.nanosUntilDue(0)).isEqualTo(plain.nanosUntilDue(0));
        assertThat(lingering.turnDue(0, true)).isTrue();
    }

    @Test
    void withoutALingerAShortClaimIsFollowedAtOnce() {
        IdlePacer pacer = new IdlePacer(IDLE_POLL, 0);
        pacer.claimed(0, 300, 7, 0);
        assertThat(pacer.turnDue(0, false)).isTrue();
    }
}
