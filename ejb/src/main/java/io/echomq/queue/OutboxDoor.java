package io.echomq.queue;

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

    OutboxDoor(Submissions submissions, Flows flows) {
        this.submissions = submissions;
        this.flows = flows;
    }

    /** {@link Submissions#enqueue}, under the outbox's key rule. */
    public Enqueued enqueue(String queue, NewJob job) {
        return submissions.enqueue(queue, job);
    }

    /** {@link Submissions#check}, under the outbox's key rule. */
    public void check(String queue, NewJob job) {
        submissions.check(queue, job);
    }

    /** {@link Flows#submit}, the root under the outbox's key rule. */
    public FlowSubmitted submitFlow(NewFlow flow) {
        return flows.submit(flow);
    }

    /** {@link Flows#check}, the root under the outbox's key rule. */
    public void checkFlow(NewFlow flow) {
        flows.check(flow);
    }
}
