package io.echomq.maintenance;

import io.echomq.queue.Flows;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes the missing children of a queue's waiting flow parents older than a grace period, from
 * the specs each parent holds (F4): the submitter makes them at once, so a parent still missing
 * one after the grace lost its submitter (a crash, a lost connection). Each child's idempotency
 * key is derived from its parent and index, so a child the submitter did make is found, not made
 * again. Walks the waiting set of each of the queue's shards a page per run, oldest first, and
 * starts that shard's walk over at its end.
 */
final class FlowRepair implements MaintenanceDuty {

    /** How long a parent's submitter has to make its children before the repair does it. */
    static final Duration GRACE = Duration.ofSeconds(10);

    private final Flows flows;
    private final Duration interval;
    private final Duration grace;
    private final int batch;
    private final Clock clock;
    /** The walk's next rank per shard of a queue ({@code <queue>#<shard>}). Used by the maintenance thread only. */
    private final Map<String, Long> from = new ConcurrentHashMap<>();

    FlowRepair(Flows flows, Duration interval, Duration grace, int batch, Clock clock) {
        this.flows = flows;
        this.interval = interval;
        this.grace = grace;
        this.batch = batch;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "flow-repair";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    /** One page of each shard's walk (a queue of one shard has one walk). */
    @Override
    public Pass runOnce(String queue) {
        int made = 0;
        for (int shard = 0, shards = flows.shardCount(queue); shard < shards; shard++) {
            made += repairPage(queue, shard);
        }
        return Pass.flowEdges(made);
    }

    private int repairPage(String queue, int shard) {
        String walk = queue + "#" + shard;
        long rank = from.getOrDefault(walk, 0L);
        Flows.MissingChildren page = flows.parentsMissingChildren(queue, shard, rank, clock.millis() - grace.toMillis(), batch);
        if (page.end()) {
            from.remove(walk);
        } else {
            from.put(walk, rank + batch);
        }
        int made = 0;
        for (Flows.WaitingParent parent : page.parents()) {
            made += flows.makeMissingChildren(parent.queue(), parent.id(), parent.createdMs());
        }
        return made;
    }
}
