package io.echomq.reliability;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import io.echomq.queue.FlowChild;
import java.util.List;

/**
 * The flow scenario's effect: one demo ledger row per job, in the job's effect transaction. A
 * flow parent's row also records what it saw when it ran: account {@value #PARENT} when every
 * child's own ledger row was already committed and every child's outcome was there, account
 * {@value #EARLY} otherwise (the parent ran before its children settled). Run in a child worker
 * via {@link WorkerProcess#HANDLER}.
 */
public final class FlowLedgerHandler implements JobHandler {

    static final String CHILD = "flow-child";
    static final String PARENT = "flow-parent";
    static final String EARLY = "flow-parent-early";

    @Override
    public void handle(JobContext job) throws Exception {
        List<FlowChild> children = job.children();
        String account = children.isEmpty() ? CHILD : allSettledAndApplied(job, children) ? PARENT : EARLY;
        job.transaction().createUpdate(LedgerChargeHandler.CHARGE)
                .bind("queue", job.queue())
                .bind("jobId", Long.parseLong(job.jobId()))
                .bind("attempt", job.attempt())
                .bind("account", account)
                .bind("amount", 1L)
                .execute();
    }

    private static boolean allSettledAndApplied(JobContext job, List<FlowChild> children) {
        for (FlowChild child : children) {
            if (!child.outcome().equals(java.util.Optional.of("completed")) || child.jobId().isEmpty()) {
                return false;
            }
            long rows = job.transaction().createQuery("SELECT count(*) FROM echomq.demo_ledger WHERE queue = :queue AND job_id = :id")
                    .bind("queue", child.queue()).bind("id", Long.parseLong(child.jobId().get())).mapTo(Long.class).one();
            if (rows == 0) {
                return false;
            }
        }
        return true;
    }
}
