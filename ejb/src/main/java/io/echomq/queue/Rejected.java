package io.echomq.queue;

import java.util.Optional;

/**
 * A settlement the queue refused because the caller does not hold the current lease. Nothing
 * changed. This is an expected outcome (a worker that outlived its lease), not an error.
 *
 * @param state    the job's state now, empty when the job does not exist
 * @param attempts the job's current attempt number (its current token), 0 when unknown
 */
public record Rejected(Lease lease, Reason reason, Optional<JobState> state, long attempts)
        implements Settlement, LeaseExtension, RetryOutcome, StopOutcome {

    public enum Reason {
        /** No such job (never existed, or deleted by retention). */
        NOT_FOUND,
        /** The job was leased again since: someone else holds a newer token. */
        STALE_TOKEN,
        /** The token is current but the lease is over: the job was settled or reaped. */
        NOT_ACTIVE
    }

    public String describe() {
        return switch (reason) {
            case NOT_FOUND -> "job " + lease.jobId() + " does not exist";
            case STALE_TOKEN -> "token " + lease.token() + " of job " + lease.jobId()
                    + " is stale: the job is at attempt " + attempts + " (" + stateName() + ")";
            case NOT_ACTIVE -> "job " + lease.jobId() + " is no longer leased (" + stateName() + ")";
        };
    }

    private String stateName() {
        return state.map(JobState::wireName).orElse("gone");
    }
}
