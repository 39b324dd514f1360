package io.echomq.queue.shard;

/**
 * A queue's shards are not what a call takes them to be (docs/SHARDING.md, 10): its shard count
 * cannot change now (a shard holds jobs whose ids name their shard under the count it was recorded
 * with), or a client that takes the queue for one of one shard was about to mint on, or read one
 * stream of, a queue laid out over several. Nothing was changed. The message says what to give.
 */
public final class ShardCountRefusedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public ShardCountRefusedException(String message) {
        super(message);
    }
}
