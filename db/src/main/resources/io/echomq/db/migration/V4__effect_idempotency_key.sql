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
-- rows without one and stay correct for unkeyed work; stop them before relying on this.
ALTER TABLE effect ADD COLUMN idempotency_key text;

CREATE UNIQUE INDEX effect_idempotency_key ON effect (queue, idempotency_key) WHERE idempotency_key IS NOT NULL;
