package io.echomq.reliability;

import io.echomq.demo.Charge;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import org.jdbi.v3.core.Jdbi;

/**
 * The negative control's handler: it writes the demo ledger row on a connection of its own,
 * committed at once, instead of through {@link JobContext#transaction()}, so the effect store
 * cannot make it happen once; then it spends 50 ms on further work inside the job's
 * transaction, the window in which a crash makes the next delivery write the row again.
 * Run in a child worker ({@link WorkerProcess#HANDLER}); connects with the worker's {@code ECHOMQ_JDBC_*}.
 */
public final class EffectStoreBypassingHandler implements JobHandler {

    private static final long WORK_AFTER_THE_EFFECT_MS = 50;

    private final Jdbi ownConnection = Jdbi.create(System.getenv("ECHOMQ_JDBC_URL"), System.getenv("ECHOMQ_JDBC_USER"),
            System.getenv("ECHOMQ_JDBC_PASSWORD"));

    @Override
    public void handle(JobContext job) throws Exception {
        Charge charge = job.payloadAs(Charge.class);
        ownConnection.useHandle(h -> LedgerChargeHandler.charge(h, job.queue(), job.jobId(), job.attempt(), charge));
        job.transaction().execute("SELECT pg_sleep(?)", WORK_AFTER_THE_EFFECT_MS / 1000.0);
    }
}
