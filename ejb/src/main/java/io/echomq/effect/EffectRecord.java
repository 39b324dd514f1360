package io.echomq.effect;

import java.time.Instant;

/** The proof that a job's effect committed: which attempt applied it, and when. */
public record EffectRecord(String queue, String jobId, long attempt, Instant appliedAt) {
}
