package io.echomq.maintenance;

import io.echomq.queue.Flows;
import java.time.Duration;

/**
 * Carries a queue's flow edges that cross slots: applies its children's settlement notices to
 * their parents (each parent's mark is set once, so a notice applied again after a crash changes
 * nothing, F2), then deletes each notice (F3); and cancels the children that its failed or
 * cancelled parents listed. Each step is sent again on the next run until acknowledged, so a crash
 * anywhere only delays it (docs/ARCHITECTURE.md, F1-F6).
 */
final class FlowRelay implements MaintenanceDuty {

    private final Flows flows;
    private final Duration interval;
    private final int batch;

    FlowRelay(Flows flows, Duration interval, int batch) {
        this.flows = flows;
        this.interval = interval;
        this.batch = batch;
    }

    @Override
    public String name() {
        return "flow-relay";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    @Override
    public Pass runOnce(String queue) {
        int edges = 0;
        for (Flows.Notice notice : flows.notices(queue, batch)) {
            flows.apply(notice);
            edges++;
        }
        for (Flows.ChildCancels cancels : flows.childCancels(queue, batch)) {
            edges += flows.cancel(cancels);
        }
        return Pass.flowEdges(edges);
    }
}
