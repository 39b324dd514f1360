package io.echomq.reliability;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;

/**
 * The demo ledger effect, except for poison: a payload containing {@code "poison":"throw"} always
 * fails, one containing {@code "poison":"halt"} halts the worker's JVM on the spot (as a native
 * crash or an OOM kill would). Run in a child worker via {@link WorkerProcess#HANDLER}.
 */
public final class PoisonHandler implements JobHandler {

    static final String THROWS = "{\"poison\":\"throw\"}";
    static final String HALTS = "{\"poison\":\"halt\"}";

    private final LedgerChargeHandler ledger = new LedgerChargeHandler();

    @Override
    public void handle(JobContext job) throws Exception {
        if (job.payload().contains("\"poison\":\"halt\"")) {
            Runtime.getRuntime().halt(137);
        }
        if (job.payload().contains("\"poison\":\"throw\"")) {
            throw new IllegalStateException("poison job " + job.jobId() + " fails on every attempt");
        }
        ledger.handle(job);
    }
}
