package io.echomq.handler;

/**
 * Application code that applies a job's effect. Implement it in a CDI bean and bind the bean
 * to a queue with {@link HandlesQueue}, the way a message-driven bean is bound to a destination.
 *
 * <p>The handler runs inside the PostgreSQL transaction that records the job's effect: write
 * through {@link JobContext#transaction()} and the writes commit together with that record,
 * exactly once per job however often the job is delivered. Follow-up jobs
 * ({@link JobContext#followUp}) and a result ({@link JobContext#result}) join that transaction
 * too. Throw to fail the attempt (all of its writes roll back and the job is retried with
 * backoff); throw {@link io.echomq.api.PermanentJobFailure} when retrying cannot help.
 *
 * <p>Effects outside PostgreSQL (an e-mail, a payment provider) cannot join the transaction:
 * pass {@link JobContext#idempotencyKey()} to systems that accept one, so a redelivered job is
 * recognised there too.
 */
@FunctionalInterface
public interface JobHandler {

    void handle(JobContext job) throws Exception;
}
