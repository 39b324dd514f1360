package io.echomq.queue;

import io.echomq.tracing.JobTelemetry;

/**
 * The outbox's door into one client's keys (see {@link OutboxDoor}): a queue of one shard, or one
 * shard of a sharded queue, whose client is the only one that {@linkplain #enqueueClaimed makes a
 * job by its keys' claims}. Obtained from {@link Submissions#outboxDoor()}.
 */
public final class QueueOutboxDoor implements OutboxDoor {

    private final Submissions submissions;
    private final Flows flows;
    private final JobTelemetry telemetry;

    QueueOutboxDoor(Submissions submissions, Flows flows, JobTelemetry telemetry) {
        this.submissions = submissions;
        this.flows = flows;
        this.telemetry = telemetry;
    }

    @Override
    public Enqueued enqueue(String queue, NewJob job, String creationContext) {
        return telemetry.resuming(creationContext, () -> submissions.enqueue(queue, job));
    }

    /**
     * {@link Submissions#enqueueClaimed} under the outbox's key rule, for the sharded client's
     * door, which resumes the row's trace around the whole key-home protocol.
     */
    public Enqueued enqueueClaimed(String queue, NewJob job, String idempotencyKeyClaim, String dedupeKeyClaim) {
        return submissions.enqueueClaimed(queue, job, idempotencyKeyClaim, dedupeKeyClaim);
    }

    @Override
    public void check(String queue, NewJob job) {
        submissions.check(queue, job);
    }

    @Override
    public FlowSubmitted submitFlow(NewFlow flow, String creationContext) {
        return telemetry.resuming(creationContext, () -> flows.submit(flow));
    }

    @Override
    public void checkFlow(NewFlow flow) {
        flows.check(flow);
    }

    @Override
    public int shardsOf(String queue) {
        return submissions.idStride();
    }
}
