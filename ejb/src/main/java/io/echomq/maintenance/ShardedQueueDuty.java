package io.echomq.maintenance;

import io.echomq.queue.shard.QueueShards;
import io.echomq.queue.shard.ShardedQueue;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A duty only a sharded queue has, run under the queue's one maintenance lease (docs/SHARDING.md, 7):
 * {@code shard-settings} brings the shards a crash left behind to shard 0's settings (pause, event
 * cap, each shard's part of the limits; section 6), so a change interrupted after shard 0 holds on
 * every shard within one interval; {@code key-homes} completes or forgets the key reservations a
 * stopped submitter left and trims the fences (section 3.1). A queue of one shard has neither. Their
 * work is not counted in a {@link Pass}: it changes settings and key records, not jobs.
 */
final class ShardedQueueDuty implements MaintenanceDuty {

    private final String name;
    private final Map<String, Runnable> work;
    private final Duration interval;

    private ShardedQueueDuty(String name, Map<String, Runnable> work, Duration interval) {
        this.name = name;
        this.work = Map.copyOf(work);
        this.interval = interval;
    }

    /** The settings sync of each sharded queue among {@code queues}; empty when none is sharded. */
    static List<MaintenanceDuty> settingsSync(QueueShards shards, List<String> queues, Duration interval) {
        return of("shard-settings", shards, queues, interval, sharded -> sharded.metaSync()::runOnce);
    }

    /** The key-home sweep of each sharded queue among {@code queues}; empty when none is sharded. */
    static List<MaintenanceDuty> keyHomeSweep(QueueShards shards, List<String> queues, Duration interval) {
        return of("key-homes", shards, queues, interval, sharded -> sharded.keyHomeSweeper()::sweep);
    }

    private static List<MaintenanceDuty> of(String name, QueueShards shards, List<String> queues, Duration interval,
            Function<ShardedQueue, Runnable> workOf) {
        Map<String, Runnable> work = new HashMap<>();
        for (String queue : queues) {
            shards.sharded(queue).ifPresent(sharded -> work.put(queue, workOf.apply(sharded)));
        }
        return work.isEmpty() ? List.of() : List.of(new ShardedQueueDuty(name, work, interval));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Duration interval() {
        return interval;
    }

    @Override
    public Pass runOnce(String queue) {
        Runnable run = work.get(queue);
        if (run != null) {
            run.run();
        }
        return Pass.NOTHING;
    }
}
