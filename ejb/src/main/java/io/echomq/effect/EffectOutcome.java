package io.echomq.effect;

import io.echomq.queue.Lease;

/**
 * What one attempt's effect transaction did: applied the effect now, or found that an earlier
 * attempt had applied it and skipped the handler. Either way the job may be completed.
 */
public sealed interface EffectOutcome permits EffectOutcome.Applied, EffectOutcome.AlreadyApplied {

    Lease lease();

    record Applied(Lease lease, EffectRecord record) implements EffectOutcome {
    }

    /** @param record the earlier attempt's effect; this attempt's handler did not run */
    record AlreadyApplied(Lease lease, EffectRecord record) implements EffectOutcome {

        public String describe() {
            return "job " + lease.jobId() + " attempt " + lease.token() + ": effect already applied by attempt "
                    + record.attempt() + " at " + record.appliedAt();
        }
    }
}
