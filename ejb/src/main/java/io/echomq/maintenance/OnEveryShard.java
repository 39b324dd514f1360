package io.echomq.maintenance;

import io.echomq.queue.QueueClient;
import io.echomq.queue.shard.QueueShards;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A duty that keeps house on every shard of a sharded queue (docs/SHARDING.md, 7): one instance of
 * the duty per shard, each on its shard's keys and judged on its shard's clock, run one after
 * another under the queue's one maintenance lease; their changes are added up. A queue of one
 * shard runs the duty as before sharding. A shard whose run fails does not keep the others from
 * theirs: the first failure is thrown after every shard had its run, and the next run retries.
 */
final class OnEveryShard implements MaintenanceDuty {

    private final MaintenanceDuty unsharded;
    /** The duty per shard, in shard order, of each sharded queue. */
    private final Map<String, List<MaintenanceDuty>> perShard;

    private OnEveryShard(MaintenanceDuty unsharded, Map<String, List<MaintenanceDuty>> perShard) {
        this.unsharded = unsharded;
        this.perShard = Map.copyOf(perShard);
    }

    /** {@code duty} made over each client that reaches some of {@code queues}' jobs: the unsharded one, and each shard's of the others. */
    static MaintenanceDuty of(QueueShards shards, List<String> queues, Function<QueueClient, MaintenanceDuty> duty) {
        Map<String, List<MaintenanceDuty>> perShard = new HashMap<>();
        for (String queue : queues) {
            if (shards.shardsOf(queue) > 1) {
                perShard.put(queue, shards.partsOf(queue).stream().map(duty).toList());
            }
        }
        MaintenanceDuty unsharded = duty.apply(shards.unsharded());
        return perShard.isEmpty() ? unsharded : new OnEveryShard(unsharded, perShard);
    }

    @Override
    public String name() {
        return unsharded.name();
    }

    @Override
    public Duration interval() {
        return unsharded.interval();
    }

    @Override
    public Pass runOnce(String queue) {
        List<MaintenanceDuty> shards = perShard.get(queue);
        if (shards == null) {
            return unsharded.runOnce(queue);
        }
        Pass total = Pass.NOTHING;
        RuntimeException failed = null;
        for (MaintenanceDuty shard : shards) {
            try {
                total = total.plus(shard.runOnce(queue));
            } catch (RuntimeException e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
        return total;
    }
}
