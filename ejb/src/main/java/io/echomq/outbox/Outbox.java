package io.echomq.outbox;

import io.echomq.api.JobRequest;
import io.echomq.queue.shard.QueueShards;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The engine's outbox on the database of its effect transactions: where a handler's follow-up
 * jobs are written, in the job's own effect transaction, and the relay that sends them to
 * Valkey once that transaction committed. Every runtime's workers get theirs from the
 * {@link io.echomq.engine.EngineAssembly}: the WAR and the standalone worker over the engine's
 * pool, the adapter over the bean's data source.
 */
public final class Outbox {

    /** An engine assembled without a relay: a follow-up would never leave the table, so it is refused. */
    public static final Outbox NONE = new Outbox(null, null);

    private final OutboxRelay relay;
    /** The layouts of the queues its engine serves, null when it knows none (every queue of one shard). */
    private final QueueShards shards;

    private Outbox(OutboxRelay relay, QueueShards shards) {
        this.relay = relay;
        this.shards = shards;
    }

    /**
     * @param relay the relay of the very data source the effect transactions use; every follow-up is
     *              checked by the rules of the door it relays through before it is written
     */
    public static Outbox relayedBy(OutboxRelay relay) {
        return new Outbox(relay, null);
    }

    /**
     * This outbox in an engine that lays its queues out as {@code shards} says: a follow-up into a
     * queue of N shards is written only when the relay routes that queue over the same N (its door
     * is {@link QueueShards#outboxDoor()}, or lays the queue out by the same configuration), so its
     * job is made on the shard a submission of it would reach (docs/SHARDING.md, 2 and 3.1).
     */
    public Outbox over(QueueShards shards) {
        return new Outbox(relay, shards);
    }

    /**
     * Checks {@code request} in full (the queue's own rules, and what the table can store), then
     * writes it on {@code transaction}'s connection, in its transaction.
     *
     * @throws IllegalArgumentException the request is invalid; the message starts with the field
     * @throws IllegalStateException    this engine runs no relay, or the row could not be written
     */
    public void write(Connection transaction, JobRequest request) {
        if (relay == null) {
            throw new IllegalStateException("follow-up jobs need the engine's outbox relay, and this engine was assembled without one "
                    + "(EngineAssembly with an Outbox); nothing was written");
        }
        requireRoute(request);
        // The request is a follow-up (JobRequests.followUp keyed it), so its key is one only the outbox's door admits.
        JobRequests.checked(relay.door(), request);
        OutboxWriter.checkStorable(List.of(request), false);
        try {
            OutboxWriter.insert(transaction, List.of(request));
        } catch (SQLException e) {
            throw new IllegalStateException("the follow-up could not be written to the outbox: " + e.getMessage(), e);
        }
    }

    /**
     * Refuses a follow-up the relay would make under another layout than the engine's: on shard 0
     * under an id that names no shard, or on a shard of another count.
     */
    private void requireRoute(JobRequest request) {
        // A null request or queue is the request checks' to refuse, by field.
        if (shards == null || request == null || request.queue() == null) {
            return;
        }
        int engine = shards.shardsOf(request.queue());
        int relayed = relay.door().shardsOf(request.queue());
        if (engine != relayed) {
            throw new IllegalArgumentException("queue: '" + request.queue() + "' has " + engine + " shards in this engine, and the "
                    + "relay of its outbox " + relay.name() + " lays it out over " + relayed + ", so its job would be made under an id "
                    + "of another layout: relay through the engine's QueueShards.outboxDoor(); nothing was written");
        }
    }

    /** Called once a transaction that wrote rows committed: the relay sends them within milliseconds, not a poll interval later. */
    public void committed() {
        if (relay != null) {
            relay.wake();
        }
    }
}
