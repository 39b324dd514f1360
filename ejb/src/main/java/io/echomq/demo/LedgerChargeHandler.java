package io.echomq.demo;

import io.echomq.effect.Migrations;
import io.echomq.handler.BatchJobHandler;
import io.echomq.handler.HandlerSchema;
import io.echomq.handler.HandlesQueue;
import io.echomq.handler.JobContext;
import io.echomq.api.PermanentJobFailure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.List;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;

/**
 * The demo effect that makes duplicates visible: each job writes one ledger row and moves the
 * account's balance. Run through the effect store it happens once per job; run any other way,
 * a redelivered job shows up as a second ledger row. Off unless in dev mode or
 * {@code echomq.demo.enabled=true}. Batch-capable: a batch of charges is one statement.
 */
@ApplicationScoped
@HandlesQueue(value = LedgerChargeHandler.QUEUE, enabledBy = LedgerChargeHandler.ENABLED_BY)
public class LedgerChargeHandler implements BatchJobHandler, HandlerSchema {

    public static final String QUEUE = "payments";
    /** The demo runs only where asked for: in dev mode, or with this key true. */
    public static final String ENABLED_BY = "echomq.demo.enabled";
    /**
     * One job's charge, the per-job mode's effect (named parameters: queue, jobId, attempt,
     * account, amount); public so the benchmark's pgbench ceiling runs this statement, not a copy.
     */
    public static final String CHARGE = """
            WITH credited AS (
                INSERT INTO echomq.demo_account AS a (id, balance_cents) VALUES (:account, :amount)
                ON CONFLICT (id) DO UPDATE SET balance_cents = a.balance_cents + EXCLUDED.balance_cents)
            INSERT INTO echomq.demo_ledger (queue, job_id, attempt, account, amount_cents)
            VALUES (:queue, :jobId, :attempt, :account, :amount)""";

    /** The demo's tables (demo_account, demo_ledger), applied by the engine only where this handler is bound. */
    @Override
    public String migrationFolder() {
        return "io/echomq/db/demo";
    }

    @Override
    public String migrationHistoryTable() {
        return "echomq_demo_schema_history";
    }

    /** The demo's tables in {@code dataSource}, for tests and benchmarks that run the handler without the engine's start. */
    public static void createTables(DataSource dataSource) {
        Migrations.migrate(dataSource, new LedgerChargeHandler(), LedgerChargeHandler.class.getClassLoader());
    }

    /** Where a charge asked for a receipt sends it, as a follow-up job (nothing drains it in the demo: it stays to be looked at). */
    public static final String RECEIPTS = "receipts";

    @Override
    public void handle(JobContext job) throws Exception {
        Charge charge = validCharge(job);
        charge(job.transaction(), job.queue(), job.jobId(), job.attempt(), charge);
        receiptIfAsked(job, charge);
    }

    @Override
    public void handleBatch(List<JobContext> jobs) throws Exception {
        int n = jobs.size();
        long[] ids = new long[n];
        long[] attempts = new long[n];
        String[] accounts = new String[n];
        long[] amounts = new long[n];
        for (int i = 0; i < n; i++) {
            JobContext job = jobs.get(i);
            Charge charge = validCharge(job);
            ids[i] = Long.parseLong(job.jobId());
            attempts[i] = job.attempt();
            accounts[i] = charge.account();
            amounts[i] = charge.amountCents();
        }
        // Accounts are credited in id order, so concurrent batches lock them in one order.
        jobs.get(0).transaction().createUpdate("""
                        WITH charge AS (
                            SELECT * FROM unnest(:ids, :attempts, :accounts, :amounts) AS c (job_id, attempt, account, amount)),
                        credited AS (
                            INSERT INTO echomq.demo_account AS a (id, balance_cents)
                            SELECT account, sum(amount) FROM charge GROUP BY account ORDER BY account
                            ON CONFLICT (id) DO UPDATE SET balance_cents = a.balance_cents + EXCLUDED.balance_cents)
                        INSERT INTO echomq.demo_ledger (queue, job_id, attempt, account, amount_cents)
                        SELECT :queue, job_id, attempt, account, amount FROM charge""")
                .bind("ids", ids)
                .bind("attempts", attempts)
                .bind("accounts", accounts)
                .bind("amounts", amounts)
                .bind("queue", jobs.get(0).queue())
                .execute();
        for (int i = 0; i < n; i++) {
            receiptIfAsked(jobs.get(i), new Charge(accounts[i], amounts[i]));
        }
    }

    /**
     * A charge submitted with {@code "receipt": true} gets one: the charge as the job's result, and
     * a follow-up job on {@value #RECEIPTS}, both committed with the charge. The payload is read
     * again only when it names a receipt, so the demo's other charges (and the benchmark's) pay nothing.
     */
    private static void receiptIfAsked(JobContext job, Charge charge) throws PermanentJobFailure {
        if (!job.payload().contains("\"receipt\"") || !job.json().asJsonObject().getBoolean("receipt", false)) {
            return;
        }
        JsonObject receipt = Json.createObjectBuilder().add("account", charge.account()).add("amountCents", charge.amountCents())
                .add("chargedByJob", job.jobId()).build();
        job.result(receipt);
        job.followUp("receipt", RECEIPTS, receipt.toString());
    }

    private static Charge validCharge(JobContext job) throws PermanentJobFailure {
        Charge charge = job.payloadAs(Charge.class);
        if (charge == null || charge.account() == null || charge.account().isBlank()) {
            throw new PermanentJobFailure("payload of job " + job.jobId() + " needs an \"account\"");
        }
        if (charge.amountCents() <= 0) {
            throw new PermanentJobFailure("\"amountCents\" of job " + job.jobId() + " must be positive, was " + charge.amountCents());
        }
        return charge;
    }

    /**
     * Writes the charge through {@code tx} in one statement (one round trip); the caller
     * decides which transaction that is.
     */
    public static void charge(Handle tx, String queue, String jobId, long attempt, Charge charge) {
        tx.createUpdate(CHARGE)
                .bind("queue", queue)
                .bind("jobId", Long.parseLong(jobId))
                .bind("attempt", attempt)
                .bind("account", charge.account())
                .bind("amount", charge.amountCents())
                .execute();
    }
}
