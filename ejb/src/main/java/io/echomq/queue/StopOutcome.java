package io.echomq.queue;

import java.time.Instant;

/**
 * The outcome of {@code stop}: the job whose cancel was requested is cancelled, no cancel was
 * requested (nothing changed), or the lease was not the caller's.
 */
public sealed interface StopOutcome permits StopOutcome.Stopped, StopOutcome.NotRequested, Rejected {

    record Stopped(Lease lease, Instant finishedAt) implements StopOutcome {
    }

    /** The job is active at this lease but nobody asked to cancel it: it stays active. */
    record NotRequested(Lease lease) implements StopOutcome {
    }
}
