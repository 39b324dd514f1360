package io.echomq.queue;

/**
 * The engine's outbox's way into the queue: the checks and submissions of {@link Submissions} and
 * {@link Flows}, admitting besides a submitter's keys the two prefixes the engine keys the jobs it
 * relays with: {@code followup:} (a handler's follow-up, {@code io.echomq.api.Job#followUpKey})
 * and {@code outbox:} (a row written without a key). Every other submission refuses them, so no
 * submitter can take such a key first and turn the engine's job into a duplicate of its own.
 *
 * <p>One client's door ({@link Submissions#outboxDoor()}) makes every job on that client's keys;
 * the door of an engine's queues ({@code QueueShards#outboxDoor()}) routes a job into a sharded
 * queue as any submission of it is routed (docs/SHARDING.md, 2 and 3.1), so a row sent again finds
 * the one job it made. For the outbox's writers and relay only.
 */
public interface OutboxDoor {

    /**
     * {@link Submissions#enqueue} under the outbox's key rule, in the trace whose context was
     * stored with the job when it was written ({@code JobTelemetry#storing}; null or {@code ""}
     * for none): its {@code send} span, and so the job's own creation context, continue the
     * writer's trace.
     */
    Enqueued enqueue(String queue, NewJob job, String creationContext);

    /** {@link Submissions#check}, under the outbox's key rule. */
    void check(String queue, NewJob job);

    /** {@link Flows#submit}, the root under the outbox's key rule, in the trace of {@code creationContext} as {@link #enqueue}. */
    FlowSubmitted submitFlow(NewFlow flow, String creationContext);

    /** {@link Flows#check}, the root under the outbox's key rule. */
    void checkFlow(NewFlow flow);

    /**
     * How many shards this door lays {@code queue} out over: the ids of the jobs it makes there
     * name a shard of that many (1: the queue's own keys).
     */
    int shardsOf(String queue);
}
