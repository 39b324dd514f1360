package io.echomq.queue.shard;

/**
 * The maintenance duty that keeps a sharded queue's shards on shard 0's settings
 * (docs/SHARDING.md, section 6): each run reads shard 0's settings once and copies them to every
 * shard whose copy is older, so a change that a crash interrupted after shard 0 reaches every
 * shard within one maintenance interval. Run by the maintenance lease's holder; safe to run
 * anywhere, at any time and twice (a copy is applied only when newer). Thread-safe.
 */
public final class ShardMetaSync {

    private final ShardMeta meta;

    ShardMetaSync(ShardMeta meta) {
        this.meta = meta;
    }

    /** One pass; answers how many shards were behind and took shard 0's settings. */
    public int runOnce() {
        return meta.sync();
    }
}
