package io.echomq.queue.shard;

import io.echomq.queue.Enqueued;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.OutboxDoor;
import io.echomq.queue.QueueClient;
import io.echomq.tracing.JobTelemetry;
import java.util.List;

/**
 * The outbox's door into a sharded queue (docs/SHARDING.md, "What is built", item 6): a relayed
 * row's job goes where a submission of it would ({@link ShardedSubmissions}: its lane's shard, a
 * laneless keyed job its key's owner, and through the key homes when another shard owns its key),
 * made by that shard's own outbox door, which alone admits the keys the engine mints
 * ({@code followup:}, {@code outbox:}). Every relayed row is keyed, so a row sent again after a
 * crash finds its key's home, and there the one job it made: never a second job on another shard.
 * A flow goes through {@link QueueShards#outboxDoor()}, which routes each of its jobs; this one
 * queue's door refuses it naming {@code queue}. Thread-safe.
 */
public final class ShardedOutboxDoor implements OutboxDoor {

    private final ShardLayout layout;
    private final ShardedSubmissions submissions;
    private final List<QueueClient> shards;
    private final JobTelemetry telemetry;

    ShardedOutboxDoor(ShardLayout layout, ShardedSubmissions submissions, List<QueueClient> shards) {
        this.layout = layout;
        this.submissions = submissions;
        this.shards = shards;
        this.telemetry = shards.get(0).telemetry();
    }

    /**
     * Submits the row's job on its shard, in the trace of {@code creationContext}; a keyed job may be
     * answered by its key's home on another shard (DUPLICATE: the job a first send made).
     *
     * @throws KeyInFlightException when its key's home is reserved on another shard by a submission not made yet
     */
    @Override
    public Enqueued enqueue(String queue, NewJob job, String creationContext) {
        check(queue, job);
        return telemetry.resuming(creationContext, () -> submissions.enqueueThroughOutbox(queue, job));
    }

    @Override
    public void check(String queue, NewJob job) {
        shards.get(0).submissions().outboxDoor().check(queue, job);
    }

    /**
     * Refused: a flow's jobs may be in other queues, whose layouts this one queue's door does not
     * know; the outbox sends flows through {@link QueueShards#outboxDoor()}, which routes each job.
     */
    @Override
    public FlowSubmitted submitFlow(NewFlow flow, String creationContext) {
        throw flowsGoElsewhere();
    }

    /** Refused, as {@link #submitFlow}. */
    @Override
    public void checkFlow(NewFlow flow) {
        throw flowsGoElsewhere();
    }

    private InvalidRequestException flowsGoElsewhere() {
        return new InvalidRequestException("queue", "'" + layout.queue() + "' has " + layout.shards()
                + " shards: a flow into it goes through the engine's routed outbox door (QueueShards.outboxDoor()), not one queue's");
    }

    @Override
    public int shardsOf(String queue) {
        return layout.shards();
    }
}
