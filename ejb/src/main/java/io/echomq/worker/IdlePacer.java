package io.echomq.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * When the next turn may go to Valkey. After a claim that found nothing the wait before the
 * next doubles, from 1 ms up to the idle poll, so an empty queue costs few round trips and a
 * job arriving after a short lull waits little; after Valkey failed, no turn for one idle poll.
 * Acknowledgements waiting make a turn due at once, unless Valkey is failing.
 *
 * <p>Not thread-safe: used by whoever holds the {@link Turn}. Times are {@link System#nanoTime()}
 * values passed in, so the pacing can be tested without a clock.
 */
final class IdlePacer {

    /** The first wait after a claim found nothing. */
    static final long FIRST_IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final long idlePollNanos;
    private long backOffUntil;
    private long nextClaimAt;
    private long idleWaitNanos = FIRST_IDLE_WAIT_NANOS;

    IdlePacer(Duration idlePoll, long nowNanos) {
        this.idlePollNanos = idlePoll.toNanos();
        this.backOffUntil = nowNanos;
        this.nextClaimAt = nowNanos;
    }

    /** Valkey is not backing off, and there are acknowledgements to send or it is time to look for jobs. */
    boolean turnDue(long nowNanos, boolean acknowledgementsWaiting) {
        return nowNanos - backOffUntil >= 0 && (acknowledgementsWaiting || nowNanos - nextClaimAt >= 0);
    }

    /** How long until a turn without acknowledgements is due (0 or less: now). */
    long nanosUntilDue(long nowNanos) {
        return Math.max(backOffUntil - nowNanos, nextClaimAt - nowNanos);
    }

    /** A turn asked Valkey for {@code wanted} jobs and found some, or none. */
    void claimed(long nowNanos, int wanted, boolean foundNothing) {
        if (wanted == 0) {
            return;
        }
        if (foundNothing) {
            nextClaimAt = nowNanos + idleWaitNanos;
            idleWaitNanos = Math.min(idleWaitNanos * 2, idlePollNanos);
        } else {
            nextClaimAt = nowNanos;
            idleWaitNanos = FIRST_IDLE_WAIT_NANOS;
        }
    }

    /** A turn could not reach Valkey (or failed there): the next waits one idle poll. */
    void valkeyFailed(long nowNanos) {
        backOffUntil = nowNanos + idlePollNanos;
    }
}
