package io.echomq.api;

/**
 * The message listener of the EchoMQ resource adapter: a {@code @MessageDriven} bean that
 * implements it, activated with the property {@code queue}, receives that queue's jobs.
 *
 * <p>Each call runs in the bean's container-managed transaction, into which the adapter has
 * already written the job's effect row: the bean's own JPA or JDBC writes on the same data source
 * commit with that row, or nothing does. A job whose transaction committed is never delivered
 * for effect again; one whose transaction rolled back (the bean threw, or the commit failed) is
 * retried with backoff until its attempts are spent, then dead-lettered. Throw
 * {@link PermanentJobFailure} to dead-letter it at once.
 */
public interface JobListener {

    /**
     * Applies the job's effect. Redeliveries of a job whose effect committed do not reach it.
     *
     * @throws Exception the effect failed: the transaction rolls back and the job is retried
     *                   (or dead-lettered, for a {@link PermanentJobFailure})
     */
    void onJob(Job job) throws Exception;
}
