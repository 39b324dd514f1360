package io.echomq.worker;

import io.echomq.effect.EffectOutcome;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.StopOutcome;
import java.time.Duration;

/**
 * What a worker reports as it goes: for metrics, logs, the console, and tests that wait on
 * events instead of sleeping. Called on worker threads; implementations must be thread-safe
 * and quick.
 */
public interface WorkerListener {

    WorkerListener NONE = new WorkerListener() { };

    default void claimed(ClaimedJob job) {
    }

    /** One claim call: how long it took and how many jobs it brought (0 when the queue was empty). */
    default void claimCall(String queue, Duration took, int jobs) {
    }

    /**
     * The effect committed in this attempt, or an earlier attempt's effect was found;
     * {@code took} is the effect transaction's duration.
     */
    default void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
    }

    default void completed(ClaimedJob job) {
    }

    /** The acknowledgement was refused: this worker no longer held the lease. */
    default void completionRejected(ClaimedJob job, Rejected rejected) {
    }

    default void retried(ClaimedJob job, RetryOutcome outcome, String error) {
    }

    /** The job's cancel was requested and its attempt stopped without committing: {@code stop} answered. */
    default void stopped(ClaimedJob job, StopOutcome outcome) {
    }

    /** A heartbeat found the lease gone: the job was reaped and may run elsewhere. */
    default void leaseLost(ClaimedJob job, Rejected rejected) {
    }

    /** Settlement could not reach the queue; the lease is left to expire. */
    default void abandoned(ClaimedJob job, Exception cause) {
    }
}
