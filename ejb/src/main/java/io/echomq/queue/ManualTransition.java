package io.echomq.queue;

import java.util.Optional;

/** The outcome of an operator's action on one job (cancel, requeue). */
public sealed interface ManualTransition permits ManualTransition.Moved, ManualTransition.Removed, ManualTransition.Refused {

    record Moved(String queue, String jobId, JobState from, JobState to) implements ManualTransition {
    }

    /** The job and its history were deleted; it was {@code from}. */
    record Removed(String queue, String jobId, JobState from) implements ManualTransition {
    }

    /** @param current the job's state, empty when there is no such job */
    record Refused(String queue, String jobId, Optional<JobState> current, String why) implements ManualTransition {
    }
}
