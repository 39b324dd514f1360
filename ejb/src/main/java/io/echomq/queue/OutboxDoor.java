package io.echomq.queue;

import io.echomq.tracing.JobTelemetry;

/**
 * The engine's outbox's way into the queue: the checks and submissions of {@link Submissions} and
 * {@link Flows}, admitting besides a submitter's keys the two prefixes the engine keys the jobs it
 * relays with: {@code followup:} (a handler's follow-up, {@code io.echomq.api.Job#followUpKey})
 * and {@code outbox:} (a row written without a key). Every other submission refuses them, so no
 * submitter can take such a key first and turn the engine's job into a duplicate of its own.
 * Obtained from {@link Submissions#outboxDoor()}, by the outbox's writers and relay only.
 */
public final class OutboxDoor {

    private final Submissions submissions;
    private final Flows flows;
    private final JobTelemetry telemetry;

    OutboxDoor(Submissions submissions, Flows flows, JobTelemetry telemetry) {
        this.submissions = submissions;
        this.flows = flows;
        this.telemetry = telemetry;
    }

    /**
     * {@link Submissions#enqueue} under the outbox's key rule, in the trace whose context was
     * stored with the job when it was written ({@link JobTelemetry#storing}; null or {@code ""}
     * for none): its {@code send} span, and so the job's own creation context, continue the
     * writer's trace.
     */
    public Enqueued enqueue(String queue, NewJob job, String creationContext) {
        return telemetry.resuming(creationContext, () -> submissions.enqueue(queue, job));
    }

    /** {@link Submissions#check}, under the outbox's key rule. */
    public void check(String queue, NewJob job) {
        submissions.check(queue, job);
    }

    /** {@link Flows#submit}, the root under the outbox's key rule, in the trace of {@code creationContext} as {@link #enqueue}. */
    public FlowSubmitted submitFlow(NewFlow flow, String creationContext) {
        return telemetry.resuming(creationContext, () -> flows.submit(flow));
    }

    /** {@link Flows#check}, the root under the outbox's key rule. */
    public void checkFlow(NewFlow flow) {
        flows.check(flow);
    }
}
