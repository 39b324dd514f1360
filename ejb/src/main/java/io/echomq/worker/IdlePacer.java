package io.echomq.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * When the next turn may go to Valkey. After a claim that found nothing the wait before the
 * next doubles, from 1 ms up to the idle poll, so an empty queue costs few round trips and a
 * job arriving after a short lull waits little; after Valkey failed, no turn for one idle poll.
 * Acknowledgements waiting make a turn due at once, unless Valkey is failing or the worker lingers.
 *
 * <p>The linger (batches only): a claim that found some jobs but fewer than it asked for means
 * the queue is caught up, and the jobs arrive a few at a time. Claiming again at once would
 * start a transaction for every few jobs, each paying a commit and a claim call, and on a busy
 * machine those small transactions queue behind each other for the cores; so the next claim
 * waits the linger, and collects what arrived meanwhile into one batch. Acknowledgements wait
 * with it (they end no job's latency: the effect is in). A full claim, or an empty one, ends
 * the linger. A job therefore waits at most one linger more than it would without it, and only
 * while the queue is busy: the first job after an idle spell meets the idle wait alone.
 *
 * <p>Idle turns: once a worker's waits have grown to the idle poll it is idle, and its claims
 * take the queue's idle turns ({@link io.echomq.queue.Leases#completeAndClaim(String, java.util.List,
 * Duration, int, String, Duration)}): an idle claim that finds nothing books the next turn on
 * the server, one idle poll after the last one any worker booked, and the next claim waits for
 * it. N idle workers then claim once per idle poll between them, each about every N idle polls,
 * and a job that arrives is claimed at the next turn, within one idle poll. A lost turn (its
 * worker stopped) delays the next claim by one idle poll; it changes no job.
 *
 * <p>Not thread-safe: used by whoever holds the {@link Turn}. Times are {@link System#nanoTime()}
 * values passed in, so the pacing can be tested without a clock.
 */
final class IdlePacer {

    /** The first wait after a claim found nothing. */
    static final long FIRST_IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final long idlePollNanos;
    /** 0: no linger (single jobs, or turned off). */
    private final long lingerNanos;
    private long backOffUntil;
    private long nextClaimAt;
    private long idleWaitNanos = FIRST_IDLE_WAIT_NANOS;
    /** The last claim came back short of what it asked for, and the next waits for {@link #nextClaimAt}. */
    private boolean lingering;

    /** A pacer without a linger: for single jobs. */
    IdlePacer(Duration idlePoll, long nowNanos) {
        this(idlePoll, Duration.ZERO, nowNanos);
    }

    IdlePacer(Duration idlePoll, Duration linger, long nowNanos) {
        this.idlePollNanos = idlePoll.toNanos();
        this.lingerNanos = linger.toNanos();
        this.backOffUntil = nowNanos;
        this.nextClaimAt = nowNanos;
    }

    /** Valkey is not backing off, and it is time to look for jobs, or there are acknowledgements to send and no linger holds them. */
    boolean turnDue(long nowNanos, boolean acknowledgementsWaiting) {
        return nowNanos - backOffUntil >= 0
                && (nowNanos - nextClaimAt >= 0 || acknowledgementsWaiting && !lingering);
    }

    /** How long until a turn without acknowledgements is due (0 or less: now). */
    long nanosUntilDue(long nowNanos) {
        return Math.max(backOffUntil - nowNanos, nextClaimAt - nowNanos);
    }

    /**
     * The idle poll once this worker is idle (its claims keep finding nothing and its wait has
     * grown to the idle poll), so that its next claim takes an idle turn; zero before.
     */
    Duration idleTurn() {
        return idleWaitNanos == idlePollNanos ? Duration.ofNanos(idlePollNanos) : Duration.ZERO;
    }

    /**
     * A turn asked Valkey for {@code wanted} jobs and got {@code found} of them, and, if it found
     * none while idle, booked the idle turn {@code untilIdleTurnNanos} from now (0: none booked).
     */
    void claimed(long nowNanos, int wanted, int found, long untilIdleTurnNanos) {
        if (wanted == 0) {
            return;
        }
        lingering = found > 0 && found < wanted && lingerNanos > 0;
        if (found == 0 && untilIdleTurnNanos > 0) {
            nextClaimAt = nowNanos + untilIdleTurnNanos;
        } else if (found == 0) {
            nextClaimAt = nowNanos + idleWaitNanos;
            idleWaitNanos = Math.min(idleWaitNanos * 2, idlePollNanos);
        } else {
            nextClaimAt = lingering ? nowNanos + lingerNanos : nowNanos;
            idleWaitNanos = FIRST_IDLE_WAIT_NANOS;
        }
    }

    /** A turn could not reach Valkey (or failed there): the next waits one idle poll. */
    void valkeyFailed(long nowNanos) {
        backOffUntil = nowNanos + idlePollNanos;
    }
}
