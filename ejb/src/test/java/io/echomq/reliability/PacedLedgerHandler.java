package io.echomq.reliability;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;

/**
 * The demo ledger effect, then 50 ms more inside the job's transaction: jobs that overlap, so
 * that a concurrency cap has something to hold back. Run in a child worker via
 * {@link WorkerProcess#HANDLER}.
 */
public final class PacedLedgerHandler implements JobHandler {

    private final LedgerChargeHandler ledger = new LedgerChargeHandler();

    @Override
    public void handle(JobContext job) throws Exception {
        ledger.handle(job);
        Thread.sleep(50);
    }
}
