package io.echomq.maintenance;

import java.time.Duration;

/**
 * A scheduled run of a maintenance duty over a queue was not waited for: it took longer than the
 * maintenance timeout (most likely waiting on PostgreSQL: no free connection, a lock), or the
 * duty's previous run still had not returned. The duty's next run tries again; lease upkeep never
 * waits on it.
 */
public final class DutyTimedOutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String duty;
    private final boolean skipped;

    /** @param stillRunningOn the queue of the duty's earlier run that has not returned yet; null when this run timed out */
    DutyTimedOutException(String duty, String queue, Duration limit, String stillRunningOn) {
        super(stillRunningOn == null
                ? "maintenance: the " + duty + " on queue '" + queue + "' took longer than " + limit.toMillis()
                        + " ms (echomq.maintenance.timeout-ms), most likely waiting for a database connection or lock; "
                        + "it was interrupted and its next run retries"
                : "maintenance: the " + duty + " skipped queue '" + queue + "': its run on queue '" + stillRunningOn
                        + "' timed out and has not returned yet; its next run retries");
        this.duty = duty;
        this.skipped = stillRunningOn != null;
    }

    /** The duty's name, as in logs and metrics: {@code reconciler}, {@code effect-retention}, … */
    public String duty() {
        return duty;
    }

    /** True when this run did not start, its duty's earlier one not having returned: that one was reported already. */
    public boolean skipped() {
        return skipped;
    }
}
