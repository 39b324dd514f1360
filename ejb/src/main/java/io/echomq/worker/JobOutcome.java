package io.echomq.worker;

import io.echomq.effect.EffectOutcome;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.FailureKind;
import java.time.Duration;

/**
 * What running one job came to, before anything is sent to Valkey. The {@link JobRunner}
 * returns it; the {@link Completer} alone acts on it (acknowledges, retries, dead-letters) and
 * reports it.
 */
sealed interface JobOutcome permits JobOutcome.Done, JobOutcome.Failed, JobOutcome.Stopped {

    ClaimedJob job();

    /**
     * What went wrong, as telemetry's {@code error.type} names it: null when the effect is in,
     * the failure kind's wire name for a failed run, {@code cancelled} for a stopped one.
     */
    String errorType();

    /**
     * The job's effect is in: committed by this attempt, or found applied earlier (the handler
     * was skipped). The job may be completed.
     *
     * @param took the effect transaction's duration
     */
    record Done(ClaimedJob job, EffectOutcome effect, Duration took) implements JobOutcome {
        @Override
        public String errorType() {
            return null;
        }
    }

    /**
     * The effect did not commit (or its outcome is unknown, which the effect store makes safe
     * to retry).
     *
     * @param kind whether the attempt counts, or the job goes dead at once
     */
    record Failed(ClaimedJob job, String error, FailureKind kind) implements JobOutcome {
        @Override
        public String errorType() {
            return kind.wireName();
        }
    }

    /**
     * The job's cancel was requested and its attempt ended without committing (the handler
     * stopped with {@code JobCancelledException}, or failed, or timed out: its transaction rolled
     * back). The job may be ended cancelled.
     */
    record Stopped(ClaimedJob job, String reason) implements JobOutcome {
        @Override
        public String errorType() {
            return "cancelled";
        }
    }
}
