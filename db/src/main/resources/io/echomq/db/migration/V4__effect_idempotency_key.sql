-- The effect row keeps the idempotency key its job was submitted with. Invariant added: among
-- the rows that carry a key, a queue has at most one per key.
--
-- Valkey answers a resubmission with the first job only while it knows the key: retention
-- releases the key with the job, and a failover can lose a job that already ran together with
-- its key. The client's resubmission then makes a second job; its effect transaction finds the
-- key taken here and skips the handler. The key names one effect for the idempotency window
-- (echomq.idempotency.window-ms): a job created that long after the one whose row carries the
-- key first clears the key from that row (the row stays, as the record of its own job), then
-- takes it.
--
-- Rows recorded before this migration carry no key. Workers of the previous version insert
-- rows without one (their claim does not return the key) and stay correct otherwise; a
-- resubmission they run is not recognised, so finish the upgrade before relying on this.
--
-- Adding the column is instant. Building the index blocks effect inserts while it runs, which
-- on a large table means workers waiting past lock_timeout and retrying: there, build it first
-- by hand with CREATE UNIQUE INDEX CONCURRENTLY and this exact definition (after adding the
-- column); the statement below then finds it and does nothing.
ALTER TABLE effect ADD COLUMN IF NOT EXISTS idempotency_key text;

CREATE UNIQUE INDEX IF NOT EXISTS effect_idempotency_key ON effect (queue, idempotency_key) WHERE idempotency_key IS NOT NULL;
