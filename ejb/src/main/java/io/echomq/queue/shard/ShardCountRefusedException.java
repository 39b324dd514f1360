package io.echomq.queue.shard;

/**
 * A queue's shard count cannot change now: a shard holds jobs whose ids name their shard under the
 * count it was recorded with (docs/SHARDING.md, 10). The message names the setting to put back.
 */
public final class ShardCountRefusedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public ShardCountRefusedException(String message) {
        super(message);
    }
}
