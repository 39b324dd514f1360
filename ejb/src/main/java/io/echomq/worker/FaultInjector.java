package io.echomq.worker;

import io.echomq.queue.ClaimedJob;

/**
 * The one seam where a delivery can be made to die, as a killed process would: the worker calls
 * each method as a delivery passes that point, in this order. In production it is {@link #NONE},
 * whose every method returns at once: nothing here changes delivery. Every runtime (the WAR, the
 * standalone worker, the resource adapter, the benchmark) starts its workers with {@code NONE}
 * through {@code EngineAssembly}; only the guarantees lab and the proofs pass another injector,
 * the lab's crashes ({@code io.echomq.lab.SimulatedCrash}).
 *
 * <p>An injector ends a delivery by throwing {@link Crash}: nothing settles the delivery's jobs
 * and nothing keeps their leases alive, so only the lease expiry brings them back.
 */
public interface FaultInjector {

    /** Production's injector: passes every point. */
    FaultInjector NONE = new FaultInjector() { };

    /** The job is leased and its effect transaction has not begun. */
    default void leased(ClaimedJob job) {
    }

    /** The job's effect committed in this attempt, or an earlier one's was found; nothing else happened yet. */
    default void effectCommitted(ClaimedJob job) {
    }

    /** The job's acknowledgement is about to be handed to the turn that sends it. */
    default void acknowledging(ClaimedJob job) {
    }

    /** The job's acknowledgement is handed to the turn that sends it. */
    default void acknowledgementQueued(ClaimedJob job) {
    }

    /**
     * Thrown by an injector to make the worker drop the delivery where it stands, as if its
     * process died there. Carries no stack trace: it is a planned stop, not a failure.
     */
    final class Crash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Crash(String message) {
            super(message, null, false, false);
        }
    }
}
