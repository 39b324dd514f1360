package io.echomq.worker;

import io.echomq.queue.ClaimedJob;

/**
 * The seam where the guarantees lab and the proofs inject crashes into a real worker. In
 * production it is {@link #NONE}.
 */
@FunctionalInterface
public interface FaultInjector {

    FaultInjector NONE = (point, job) -> { };

    /** Called as the delivery passes {@code point}; throw {@link SimulatedCrash} to die there. */
    void at(CrashPoint point, ClaimedJob job);

    /** Crashes every delivery whose attempt is {@code attempt} at {@code point}. */
    static FaultInjector crashAt(CrashPoint point, long attempt) {
        return (at, job) -> {
            if (at == point && job.attempt() == attempt) {
                throw new SimulatedCrash(point);
            }
        };
    }
}
