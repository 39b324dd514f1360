package io.echomq.outbox;

import io.echomq.api.JobRequest;
import io.echomq.queue.Submissions;
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
    public static final Outbox NONE = new Outbox(null, null, null);

    private final Submissions submissions;
    private final OutboxRelay relay;
    /** The layouts of the queues its engine serves, null when it knows none (every queue of one shard). */
    private final QueueShards shards;

    private Outbox(Submissions submissions, OutboxRelay relay, QueueShards shards) {
        this.submissions = submissions;
        this.relay = relay;
        this.shards = shards;
    }

    /**
     * @param submissions the rules every follow-up is checked by before it is written
     * @param relay       the relay of the very data source the effect transactions use
     */
    public static Outbox relayedBy(Submissions submissions, OutboxRelay relay) {
        return new Outbox(submissions, relay, null);
    }

    /**
     * This outbox, refusing follow-ups into the queues {@code shards} lays out over several shards:
     * its relay submits through the unsharded client, which would make such a job on shard 0 under
     * an id that names no shard, until the relay is routed over shards (docs/SHARDING.md, "What is
     * built, and what remains", item 6).
     */
    public Outbox over(QueueShards shards) {
        return new Outbox(submissions, relay, shards);
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
        refuseShardedQueue(request);
        // The request is a follow-up (JobRequests.followUp keyed it), so its key is one only the outbox's door admits.
        JobRequests.checked(submissions.outboxDoor(), request);
        OutboxWriter.checkStorable(List.of(request), false);
        try {
            OutboxWriter.insert(transaction, List.of(request));
        } catch (SQLException e) {
            throw new IllegalStateException("the follow-up could not be written to the outbox: " + e.getMessage(), e);
        }
    }

    private void refuseShardedQueue(JobRequest request) {
        // A null request or queue is the request checks' to refuse, by field.
        if (shards != null && request != null && request.queue() != null) {
            shards.requireOneShard(request.queue(), "routing follow-up jobs into it");
        }
    }

    /** Called once a transaction that wrote rows committed: the relay sends them within milliseconds, not a poll interval later. */
    public void committed() {
        if (relay != null) {
            relay.wake();
        }
    }
}
