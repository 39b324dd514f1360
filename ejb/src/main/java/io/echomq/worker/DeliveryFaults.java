package io.echomq.worker;

import io.echomq.queue.ClaimedJob;
import java.util.List;

/**
 * The crash points of a delivery, passed in order by the runner and the completer. In
 * production the injector is {@link FaultInjector#NONE}; the guarantees lab and the proofs
 * make a delivery die at a point, as a killed process would, and hear about it first.
 */
final class DeliveryFaults {

    private final FaultInjector injector;
    private final WorkerListener listener;

    DeliveryFaults(FaultInjector injector, WorkerListener listener) {
        this.injector = injector;
        this.listener = listener;
    }

    /**
     * Lets every job pass {@code point}.
     *
     * @throws SimulatedCrash for the first job the injector crashes, reported for that job; the
     *                        delivery must then do nothing more
     */
    void pass(CrashPoint point, List<ClaimedJob> jobs) {
        if (injector == FaultInjector.NONE) {
            return;
        }
        for (ClaimedJob job : jobs) {
            try {
                injector.at(point, job);
            } catch (SimulatedCrash crash) {
                listener.crashed(job, point);
                throw crash;
            }
        }
    }

    void pass(CrashPoint point, ClaimedJob job) {
        pass(point, List.of(job));
    }
}
