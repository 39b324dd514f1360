package io.echomq.handler;

import java.util.List;

/**
 * A handler that applies many jobs' effects in one PostgreSQL transaction, set-wise: the
 * batched effect mode. The worker claims jobs in batches, records the batch's effect keys in one
 * statement and calls {@link #handleBatch} with the jobs no earlier attempt applied; every
 * context's {@link JobContext#transaction()} is that one transaction.
 *
 * <p>If the batch fails (the handler throws, a key is held by a zombie), nothing of it commits
 * and the worker falls back to one transaction per job, calling {@link #handle} (by default a
 * batch of one), so one poison job fails alone and its neighbours still commit.
 */
public interface BatchJobHandler extends JobHandler {

    /** Applies the effects of {@code jobs} (at least one, in job-id order) through their shared transaction. */
    void handleBatch(List<JobContext> jobs) throws Exception;

    @Override
    default void handle(JobContext job) throws Exception {
        handleBatch(List.of(job));
    }
}
