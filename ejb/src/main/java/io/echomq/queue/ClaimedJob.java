package io.echomq.queue;

import java.time.Instant;

/**
 * A job handed to a worker by a claim.
 *
 * @param leaseUntil the lease deadline on the Valkey server's clock; past it the reaper may
 *                   give the job to someone else, and this lease's token becomes stale
 */
public record ClaimedJob(Lease lease, String payload, String lane, Instant leaseUntil) {

    public String id() {
        return lease.jobId();
    }

    /** The attempt this delivery is: 1 for the first, 2 for the first redelivery, and so on. */
    public long attempt() {
        return lease.token();
    }
}
