package io.echomq.worker;

import io.echomq.queue.ClaimedJob;
import java.util.List;

/**
 * The work one turn leased for one runner: a single job, or a batch for a batch handler.
 *
 * @param leasedAtNanos {@link System#nanoTime()} when the claim call that leased the jobs was
 *                      sent. The server started the lease after that, so a heartbeat timed from
 *                      here is never late, however long the work waits for a runner.
 */
record Portion(List<ClaimedJob> jobs, long leasedAtNanos) {

    Portion {
        jobs = List.copyOf(jobs);
    }
}
