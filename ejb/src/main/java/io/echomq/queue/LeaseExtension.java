package io.echomq.queue;

import java.time.Instant;

/** The outcome of a heartbeat: the lease runs until a new deadline, or it is no longer held. */
public sealed interface LeaseExtension permits LeaseExtension.Extended, Rejected {

    record Extended(Lease lease, Instant leaseUntil) implements LeaseExtension {
    }
}
