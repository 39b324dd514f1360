package io.echomq.tracing;

import io.echomq.queue.ClaimedJob;
import io.echomq.worker.WorkerListener;
import java.util.List;

/**
 * One worker's deliveries as telemetry sees them: a {@link Processing} per portion of work, and,
 * as the worker's listener, the settlement that ends each job's {@code settle} span (an
 * acknowledgement goes out in a later turn, after the processing ended).
 */
public interface Deliveries extends WorkerListener {

    /** Starts processing one job on the calling thread. */
    Processing processing(ClaimedJob job);

    /** Starts processing a batch of jobs in one transaction on the calling thread. */
    Processing processingBatch(List<ClaimedJob> jobs);

    /** Whether this does anything: a worker need not listen to deliveries that are off. */
    boolean on();
}
