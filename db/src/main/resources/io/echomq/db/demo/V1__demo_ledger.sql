-- The demo domain, which makes duplicate effects visible. Invariant added: none on purpose.
--
-- Run only where the demo handler is bound (dev mode, or echomq.demo.enabled=true), with a
-- history of its own (echomq_demo_schema_history). Until this version the engine's own V2 made
-- these tables in every database: IF NOT EXISTS lets such a database take this history over.
--
-- Each job of the demo queue charges an account once. The ledger has NO unique constraint on
-- the job: exactly-once must come from the effect store, and a duplicate effect (from a
-- handler run outside it, as the guarantees lab does) shows up as a second row for a job.
CREATE TABLE IF NOT EXISTS demo_account (
    id            text   PRIMARY KEY,
    balance_cents bigint NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS demo_ledger (
    id           bigserial   PRIMARY KEY,
    queue        text        NOT NULL,
    job_id       bigint      NOT NULL,
    attempt      integer     NOT NULL,
    account      text        NOT NULL REFERENCES demo_account (id),
    amount_cents bigint      NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX IF NOT EXISTS demo_ledger_job ON demo_ledger (queue, job_id);
