/**
 * One queue over several hash tags of a Valkey Cluster (docs/SHARDING.md): {@code ShardLayout}
 * names each shard's keys and routes lanes, job ids and submissions' keys to shards. Each shard is
 * a complete queue of the same scripts on its own slot; no script touches two shards.
 *
 * <p>Must not touch: PostgreSQL, threads. Shard 0's keys are the unsharded queue's, so nothing
 * here changes a queue of one shard.
 */
package io.echomq.queue.shard;
