package io.echomq.reliability;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;

/**
 * The demo ledger effect, then 300 ms more inside the job's transaction: a worker frozen at any
 * moment most likely holds open effect transactions (and their row locks), which is what the
 * zombie and graceful-stop scenarios need to prove something. Run in a child worker via
 * {@link WorkerProcess#HANDLER}.
 */
public final class SlowLedgerHandler implements JobHandler {

    /** Visible in {@code pg_stat_activity.query}, so a test can see the transactions this handler holds open. */
    static final String SLOW_STATEMENT = "SELECT pg_sleep(0.3)";

    private final LedgerChargeHandler ledger = new LedgerChargeHandler();

    @Override
    public void handle(JobContext job) throws Exception {
        ledger.handle(job);
        job.transaction().execute(SLOW_STATEMENT);
    }
}
