package io.echomq.maintenance;

import io.echomq.queue.shard.QueueShards;
import io.echomq.queue.shard.ShardMetaSync;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Brings the shards of a sharded queue that a crash left behind to shard 0's settings (pause, event
 * cap, each shard's part of the limits; docs/SHARDING.md, 6), under the queue's one maintenance
 * lease: a change interrupted after shard 0 holds on every shard within one interval. A queue of one
 * shard has nothing to copy. Its copies are not counted in a {@link Pass}: a copy is a setting, not a job.
 */
final class ShardSettingsSync implements MaintenanceDuty {

    private final Map<String, ShardMetaSync> syncs;
    private final Duration interval;

    private ShardSettingsSync(Map<String, ShardMetaSync> syncs, Duration interval) {
        this.syncs = Map.copyOf(syncs);
        this.interval = interval;
    }

    /** The sync of each sharded queue among {@code queues}; empty when none is sharded. */
    static List<MaintenanceDuty> of(QueueShards shards, List<String> queues, Duration interval) {
        Map<String, ShardMetaSync> syncs = new HashMap<>();
        for (String queue : queues) {
            shards.sharded(queue).ifPresent(sharded -> syncs.put(queue, sharded.metaSync()));
        }
        return syncs.isEmpty() ? List.of() : List.of(new ShardSettingsSync(syncs, interval));
    }

    @Override
    public String name() {
        return "shard-settings";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    @Override
    public Pass runOnce(String queue) {
        ShardMetaSync sync = syncs.get(queue);
        if (sync != null) {
            sync.runOnce();
        }
        return Pass.NOTHING;
    }
}
