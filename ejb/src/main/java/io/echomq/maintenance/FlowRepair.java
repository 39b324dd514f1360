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
 * again. Walks the waiting set a page per run, oldest first, and starts over at its end.
 */
final class FlowRepair implements MaintenanceDuty {

    /** How long a parent's submitter has to make its children before the repair does it. */
    static final Duration GRACE = Duration.ofSeconds(10);

    private final Flows flows;
    private final Duration interval;
    private final Duration grace;
    private final int batch;
    private final Clock clock;
    /** The walk's next rank per queue. Used by the maintenance thread only. */
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

    @Override
    public Pass runOnce(String queue) {
        long rank = from.getOrDefault(queue, 0L);
        Flows.MissingChildren page = flows.parentsMissingChildren(queue, rank, clock.millis() - grace.toMillis(), batch);
        if (page.end()) {
            from.remove(queue);
        } else {
            from.put(queue, rank + batch);
        }
        int made = 0;
        for (Flows.WaitingParent parent : page.parents()) {
            made += flows.makeMissingChildren(parent.queue(), parent.id(), parent.createdMs());
        }
        return Pass.flowEdges(made);
    }
}
