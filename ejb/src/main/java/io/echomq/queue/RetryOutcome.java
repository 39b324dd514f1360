package io.echomq.queue;

import java.time.Instant;

/**
 * The outcome of reporting a failed attempt: another attempt is scheduled, the job is
 * dead-lettered, the job is cancelled (its cancel had been requested), or the lease was not the
 * caller's.
 */
public sealed interface RetryOutcome permits RetryOutcome.Scheduled, RetryOutcome.DeadLettered, RetryOutcome.Cancelled,
        Rejected {

    /** @param state {@link JobState#DELAYED} until {@code dueAt}, or {@link JobState#PENDING} */
    record Scheduled(Lease lease, JobState state, Instant dueAt) implements RetryOutcome {
    }

    record DeadLettered(Lease lease, long attempts) implements RetryOutcome {
    }

    /** Its cancel was requested while the attempt ran: a failed attempt ends the job, never retries it. */
    record Cancelled(Lease lease, Instant finishedAt) implements RetryOutcome {
    }
}
