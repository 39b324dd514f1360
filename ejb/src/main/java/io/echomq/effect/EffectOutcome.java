package io.echomq.effect;

import io.echomq.queue.Lease;
import java.time.Instant;

/**
 * What one attempt's effect transaction did: applied the effect now, or found that an earlier
 * attempt had applied it and skipped the handler. Either way the job may be completed.
 */
public sealed interface EffectOutcome permits EffectOutcome.Applied, EffectOutcome.AlreadyApplied {

    Lease lease();

    record Applied(Lease lease, EffectRecord record) implements EffectOutcome {
    }

    /**
     * @param record the effect already applied: by an earlier attempt of this job, or by another
     *               job submitted with the same idempotency key; this attempt's handler did not run
     */
    record AlreadyApplied(Lease lease, EffectRecord record) implements EffectOutcome {

        /** True when another job, submitted with this job's idempotency key, applied the effect. */
        public boolean byAnotherJob() {
            return !record.isOf(lease.identity());
        }

        public String describe() {
            String by = byAnotherJob()
                    ? "job " + record.jobId() + " created " + Instant.ofEpochMilli(record.jobCreatedMs())
                            + " (submitted with the same idempotency key '" + lease.idempotencyKey() + "'), attempt "
                    : "attempt ";
            return "job " + lease.jobId() + " attempt " + lease.token() + ": effect already applied by " + by
                    + record.attempt() + " at " + record.appliedAt();
        }
    }
}
