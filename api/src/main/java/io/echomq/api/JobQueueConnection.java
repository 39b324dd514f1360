package io.echomq.api;

import java.util.List;

/**
 * Enqueues jobs. Inside an active JTA transaction a job is written to the outbox table through
 * the connection factory's data source, in that transaction, and relayed to Valkey after it
 * commits: a rollback leaves no job, a commit makes exactly one. Outside a transaction it is
 * enqueued at once. Not thread-safe; close it when done.
 */
public interface JobQueueConnection extends AutoCloseable {

    /**
     * Enqueues one job.
     *
     * @throws IllegalArgumentException the request is invalid; the message starts with the field
     * @throws JobQueueException        the job could not be enqueued, or the outcome is unknown
     */
    Submission enqueue(JobRequest request);

    /** {@link #enqueue} of {@code JobRequest.of(queue, payload)}. */
    default Submission enqueue(String queue, String payload) {
        return enqueue(JobRequest.of(queue, payload));
    }

    /**
     * Enqueues several jobs, all or none: each is checked before any is written.
     *
     * @return one submission per request, in order
     */
    List<Submission> enqueueBatch(List<JobRequest> requests);

    /**
     * Submits a flow: a parent job and the children it waits for ({@link FlowRequest}). Inside an
     * active JTA transaction the whole flow is one outbox row, written in that transaction and
     * submitted by the relay after it commits, under the root's idempotency key or, without one,
     * the row's own: a rollback leaves no job, a commit makes exactly one parent with its children,
     * however often the relay sends the row. Outside a transaction it is submitted at once.
     *
     * @return the root's submission ({@code jobId} null while it waits in the outbox)
     * @throws IllegalArgumentException a node is invalid; the message starts with the field, e.g. {@code children[2].payload}
     * @throws JobQueueException        the flow could not be written or submitted, or the outcome is unknown
     */
    Submission submitFlow(FlowRequest flow);

    /**
     * Enqueues {@code request} as the follow-up named {@code step} of {@code job}, the job this
     * message-driven bean is handling: written to the outbox in the delivery's transaction, so
     * it exists only if the job's effect commits, under the key {@link Job#followUpKey(String)}
     * (the job and the step, never the attempt), so a redelivered job makes it once.
     *
     * @param request the follow-up job; it must carry no idempotency key of its own
     * @throws IllegalArgumentException a bad step or request; the message starts with the field
     * @throws JobQueueException        there is no active transaction to write it in, or it could not be written
     */
    Submission followUp(Job job, String step, JobRequest request);

    @Override
    void close();
}
