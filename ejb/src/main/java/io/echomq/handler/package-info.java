/**
 * The handler SPI an application implements: {@link io.echomq.handler.JobHandler} (one job per
 * transaction) or {@link io.echomq.handler.BatchJobHandler} (set-wise), bound to a queue with
 * {@link io.echomq.handler.HandlesQueue}; each call gets a {@link io.echomq.handler.JobContext}
 * whose transaction is the job's effect transaction, into which the handler may also write
 * follow-up jobs and a result ({@link io.echomq.handler.JobContext#followUp},
 * {@link io.echomq.handler.JobContext#result}, carried by the worker's {@link io.echomq.handler.JobOutputs}).
 *
 * <p>Must not touch: anything of the engine; a handler sees only its job and its transaction.
 */
package io.echomq.handler;
