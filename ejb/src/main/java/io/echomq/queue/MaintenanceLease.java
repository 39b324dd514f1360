package io.echomq.queue;

import java.time.Duration;

/**
 * Who keeps house for a queue: the answer of {@link QueueAdmin#holdMaintenance}. The maintenance
 * duties over a queue run on the engine that holds its lease, so they run once per queue however
 * many engines serve it.
 */
public sealed interface MaintenanceLease {

    /** How long the lease lasts from when Valkey answered (its own clock). */
    Duration remaining();

    /**
     * The caller holds the lease.
     *
     * @param token the holding's fencing token: the same across renewals, higher for every new holding of the queue's lease
     */
    record Held(long token, Duration remaining) implements MaintenanceLease {
    }

    /** Another engine holds the lease. */
    record HeldBy(String holder, Duration remaining) implements MaintenanceLease {
    }
}
