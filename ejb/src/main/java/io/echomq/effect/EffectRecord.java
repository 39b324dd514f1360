package io.echomq.effect;

import io.echomq.queue.JobIdentity;
import java.time.Instant;

/**
 * The proof that a job's effect committed: which attempt applied it, and when.
 *
 * @param jobCreatedMs the creation time of the job the row belongs to, or 0 for a row recorded
 *                     before effect keys named it (such a row stands for any job with its id)
 */
public record EffectRecord(String queue, String jobId, long jobCreatedMs, long attempt, Instant appliedAt) {

    /**
     * Whether this is the record of that job's own effect, not of another job's that stands for
     * it (one submitted with the same idempotency key).
     */
    public boolean isOf(JobIdentity job) {
        return jobId.equals(job.jobId()) && (jobCreatedMs == 0 || jobCreatedMs == job.createdMs());
    }
}
