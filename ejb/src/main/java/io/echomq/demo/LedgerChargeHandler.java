package io.echomq.demo;

import io.echomq.handler.HandlesQueue;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import io.echomq.handler.PermanentJobFailure;
import jakarta.enterprise.context.ApplicationScoped;
import org.jdbi.v3.core.Handle;

/**
 * The demo effect that makes duplicates visible: each job writes one ledger row and moves the
 * account's balance. Run through the effect store it happens once per job; run any other way,
 * a redelivered job shows up as a second ledger row. On by default; {@code echomq.demo.enabled=false}
 * turns it off.
 */
@ApplicationScoped
@HandlesQueue(LedgerChargeHandler.QUEUE)
public class LedgerChargeHandler implements JobHandler {

    public static final String QUEUE = "payments";

    @Override
    public void handle(JobContext job) throws Exception {
        Charge charge = job.payloadAs(Charge.class);
        if (charge == null || charge.account() == null || charge.account().isBlank()) {
            throw new PermanentJobFailure("payload needs an \"account\"");
        }
        if (charge.amountCents() <= 0) {
            throw new PermanentJobFailure("\"amountCents\" must be positive, was " + charge.amountCents());
        }
        charge(job.transaction(), job.queue(), job.jobId(), job.attempt(), charge);
    }

    /** Writes the charge through {@code tx}; the caller decides which transaction that is. */
    public static void charge(Handle tx, String queue, String jobId, long attempt, Charge charge) {
        tx.createUpdate("""
                        INSERT INTO echomq.demo_account (id, balance_cents) VALUES (:account, 0)
                        ON CONFLICT (id) DO NOTHING""")
                .bind("account", charge.account())
                .execute();
        tx.createUpdate("""
                        INSERT INTO echomq.demo_ledger (queue, job_id, attempt, account, amount_cents)
                        VALUES (:queue, :jobId, :attempt, :account, :amount)""")
                .bind("queue", queue)
                .bind("jobId", Long.parseLong(jobId))
                .bind("attempt", attempt)
                .bind("account", charge.account())
                .bind("amount", charge.amountCents())
                .execute();
        tx.createUpdate("UPDATE echomq.demo_account SET balance_cents = balance_cents + :amount WHERE id = :account")
                .bind("amount", charge.amountCents())
                .bind("account", charge.account())
                .execute();
    }
}
