package io.echomq.queue;

import java.time.Instant;
import java.util.Optional;

/** The outcome of an operator's action on one job (cancel, requeue, promote, reschedule, delete). */
public sealed interface ManualTransition
        permits ManualTransition.Moved, ManualTransition.Removed, ManualTransition.Rescheduled, ManualTransition.CancelRequested,
        ManualTransition.Refused {

    record Moved(String queue, String jobId, JobState from, JobState to) implements ManualTransition {
    }

    /** The job and its history were deleted; it was {@code from}. */
    record Removed(String queue, String jobId, JobState from) implements ManualTransition {
    }

    /** The delayed job stays delayed, now due at {@code dueAt} (ms, the server's clock). */
    record Rescheduled(String queue, String jobId, Instant dueAt) implements ManualTransition {
    }

    /**
     * The job is active: it stays so, with its cancel requested; its handler learns it with the
     * next heartbeat and ends the job cancelled by stopping, or completed if its effect commits.
     */
    record CancelRequested(String queue, String jobId) implements ManualTransition {
    }

    /** @param current the job's state, empty when there is no such job */
    record Refused(String queue, String jobId, Optional<JobState> current, String why) implements ManualTransition {
    }
}
