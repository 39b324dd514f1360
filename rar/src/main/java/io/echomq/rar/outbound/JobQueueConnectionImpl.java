package io.echomq.rar.outbound;

import io.echomq.api.FlowRequest;
import io.echomq.api.Job;
import io.echomq.api.JobQueueConnection;
import io.echomq.api.JobQueueException;
import io.echomq.api.JobRequest;
import io.echomq.api.Submission;
import jakarta.resource.ResourceException;
import java.util.List;

/**
 * The handle applications hold: {@link JobQueueConnection} over its managed connection, which the
 * container may swap ({@code associateConnection}). Closing it tells the container the managed
 * connection is free; using it after close fails.
 */
public final class JobQueueConnectionImpl implements JobQueueConnection {

    private volatile JobQueueManagedConnection managed;

    JobQueueConnectionImpl(JobQueueManagedConnection managed) {
        this.managed = managed;
    }

    @Override
    public Submission enqueue(JobRequest request) {
        return enqueuer().enqueue(request);
    }

    @Override
    public List<Submission> enqueueBatch(List<JobRequest> requests) {
        return enqueuer().enqueueBatch(requests);
    }

    @Override
    public Submission submitFlow(FlowRequest flow) {
        return enqueuer().submitFlow(flow);
    }

    @Override
    public Submission followUp(Job job, String step, JobRequest request) {
        return enqueuer().followUp(job, step, request);
    }

    private OutboundEnqueuer enqueuer() {
        JobQueueManagedConnection current = managed;
        if (current == null) {
            throw new IllegalStateException("the EchoMQ connection is closed");
        }
        try {
            return current.enqueuer();
        } catch (ResourceException e) {
            throw new JobQueueException("not enqueued: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        JobQueueManagedConnection current = managed;
        if (current != null) {
            managed = null;
            current.closed(this);
        }
    }

    /** Moves the handle to {@code next}; returns the one it had. */
    JobQueueManagedConnection associate(JobQueueManagedConnection next) {
        JobQueueManagedConnection previous = managed;
        managed = next;
        return previous;
    }

    void invalidate() {
        managed = null;
    }
}
