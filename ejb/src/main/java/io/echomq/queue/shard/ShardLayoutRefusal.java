package io.echomq.queue.shard;

/**
 * A shard that kept its layout because it holds jobs minted under it (docs/SHARDING.md, 10).
 *
 * @param recordedShards the shard count its ids were minted for (1 when it never had a layout)
 * @param recordedShard  its index in that layout
 * @param jobs           the jobs it holds, in every state
 */
public record ShardLayoutRefusal(int recordedShards, int recordedShard, long jobs) {
}
