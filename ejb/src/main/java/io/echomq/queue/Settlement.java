package io.echomq.queue;

import java.time.Instant;

/** The outcome of {@code complete}: the job is completed, or the lease was not the caller's. */
public sealed interface Settlement permits Settlement.Completed, Rejected {

    record Completed(Lease lease, Instant finishedAt) implements Settlement {
    }
}
