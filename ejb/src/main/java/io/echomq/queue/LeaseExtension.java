package io.echomq.queue;

import java.time.Instant;

/** The outcome of a heartbeat: the lease runs until a new deadline, or it is no longer held. */
public sealed interface LeaseExtension permits LeaseExtension.Extended, Rejected {

    /** @param cancelRequested an operator asked to cancel the job: its handler should stop */
    record Extended(Lease lease, Instant leaseUntil, boolean cancelRequested) implements LeaseExtension {
    }
}
