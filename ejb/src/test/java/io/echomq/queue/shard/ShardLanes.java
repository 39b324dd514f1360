package io.echomq.queue.shard;

import java.util.stream.IntStream;

/** Lanes for tests of sharded queues: a lane that a layout puts on a given shard. */
public final class ShardLanes {

    private ShardLanes() {
    }

    /** The first of {@code lane-0}, {@code lane-1}, … that {@code layout} puts on {@code shard}. */
    public static String firstOn(ShardLayout layout, int shard) {
        return IntStream.range(0, 10_000).mapToObj(i -> "lane-" + i).filter(lane -> layout.shardOfLane(lane) == shard).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no lane-<i> below 10000 on shard " + shard + " of " + layout.shards()));
    }
}
