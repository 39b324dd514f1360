package io.echomq.maintenance;

import io.echomq.queue.Flows;
import java.time.Duration;
import java.util.List;

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

    /**
     * Batches until the queue's notices and cancel lists are all carried, so the relay keeps pace
     * with any rate of settling children (one batch a run capped flows at {@code batch} edges per
     * interval a queue: 500 a second by default). A run stops at half its interval at the latest,
     * leaving the rest to the next one.
     */
    @Override
    public Pass runOnce(String queue) {
        int edges = 0;
        long deadline = System.nanoTime() + interval.toNanos() / 2;
        boolean more = true;
        while (more && System.nanoTime() < deadline) {
            List<Flows.Notice> notices = flows.notices(queue, batch);
            for (Flows.Notice notice : notices) {
                flows.apply(notice);
                edges++;
            }
            List<Flows.ChildCancels> cancelLists = flows.childCancels(queue, batch);
            for (Flows.ChildCancels cancels : cancelLists) {
                edges += flows.cancel(cancels);
            }
            more = notices.size() == batch || cancelLists.size() == batch;
        }
        return Pass.flowEdges(edges);
    }
}
