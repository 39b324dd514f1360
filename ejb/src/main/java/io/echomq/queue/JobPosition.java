package io.echomq.queue;

import java.util.Comparator;

/**
 * Where a job stands in a listing of its state (see {@link QueueReads#positions}): its set's score
 * (pending: the claim order within its lane; every other state: when it entered the state) and
 * its id; a listing runs by score, then by id as text.
 */
public record JobPosition(String jobId, long score) {

    /** The order of a listing, also across the shards of one queue. */
    public static final Comparator<JobPosition> LISTING_ORDER = Comparator.comparingLong(JobPosition::score)
            .thenComparing(JobPosition::jobId);

    /** The cursor of a page that ends with this job: the next page starts after it. */
    public String cursor() {
        return new JobPages.ScoreCursor(score, jobId).toString();
    }
}
