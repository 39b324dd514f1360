package io.echomq.queue;

import java.time.Instant;

/**
 * The outcome of reporting a failed attempt: another attempt is scheduled, the job is
 * dead-lettered, or the lease was not the caller's.
 */
public sealed interface RetryOutcome permits RetryOutcome.Scheduled, RetryOutcome.DeadLettered, Rejected {

    /** @param state {@link JobState#DELAYED} until {@code dueAt}, or {@link JobState#PENDING} */
    record Scheduled(Lease lease, JobState state, Instant dueAt) implements RetryOutcome {
    }

    record DeadLettered(Lease lease, long attempts) implements RetryOutcome {
    }
}
