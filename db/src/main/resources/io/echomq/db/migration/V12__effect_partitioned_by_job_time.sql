-- The effect table becomes partitioned by its job's creation time (RANGE on job_created_ms, part
-- of the primary key already), so that retention retires rows a whole partition at a time
-- (DETACH and DROP: no dead rows, no vacuum) instead of deleting them one by one.
--
-- What this migration leaves: the old table, unchanged, as the partition of every creation time
-- below the newest one it holds (effect_before_partitions); an empty DEFAULT partition
-- (effect_default) for rows no other partition takes. The engine makes the time partitions ahead
-- of need (io.echomq.effect.EffectPartitions) and retires them; the old table is retired the same
-- way, as a whole, once it is older than the effect retention age.
--
-- The UNIQUE index (queue, idempotency_key) cannot stay: a unique index on a partitioned table
-- must include the partition key, and unique per creation time is no guarantee at all. Its
-- guarantee -- among the rows that carry a key, a queue has at most one per key, so two jobs
-- submitted with one key produce one effect even when they race -- is kept by the effect store
-- instead: an effect transaction takes a transaction-scoped advisory lock per (queue, key) before
-- it looks for a row carrying the key and records its own (EffectStore). The index stays, not
-- unique, so that look-up reads one index entry per partition.
--
-- The step is short but not online: the table is locked against effect writes while it runs (stop
-- the workers or let them wait and retry; no worker of an older version may run after it, their
-- statements rely on the unique index). It reads the old table twice (its newest creation time, and
-- the check that proves the partition bound, so ATTACH need not scan again) and builds the
-- non-unique key index. Measured on this project's 2-core build machine: 1,000,000 rows (100,000 with a key) in 1.2 s
-- (docs/ARCHITECTURE.md, "Effect retention"). On a larger table build the key index first by hand,
-- online, with exactly this definition; the statement below then finds it and does nothing:
--   CREATE INDEX CONCURRENTLY effect_idempotency_key_lookup ON echomq.effect (queue, idempotency_key)
--       WHERE idempotency_key IS NOT NULL;
LOCK TABLE effect IN ACCESS EXCLUSIVE MODE;

CREATE INDEX IF NOT EXISTS effect_idempotency_key_lookup ON effect (queue, idempotency_key) WHERE idempotency_key IS NOT NULL;
DROP INDEX effect_idempotency_key;

ALTER TABLE effect RENAME TO effect_before_partitions;
ALTER INDEX effect_pkey RENAME TO effect_before_partitions_pkey;
ALTER INDEX effect_legacy_job RENAME TO effect_before_partitions_legacy_job;
ALTER INDEX effect_queue_applied_at RENAME TO effect_before_partitions_queue_applied_at;
ALTER INDEX effect_idempotency_key_lookup RENAME TO effect_before_partitions_idempotency_key;

-- The columns in the old table's order, so that a row reads the same from either; the checks by
-- the old table's names for them, which a partition must carry.
CREATE TABLE effect (
    queue           text        NOT NULL,
    job_id          bigint      NOT NULL,
    attempt         integer     NOT NULL CONSTRAINT effect_attempt_check CHECK (attempt >= 1),
    applied_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    job_created_ms  bigint      NOT NULL CONSTRAINT effect_job_created_ms_check CHECK (job_created_ms >= 0),
    idempotency_key text,
    result          jsonb,
    CONSTRAINT effect_pkey PRIMARY KEY (queue, job_id, job_created_ms)
) PARTITION BY RANGE (job_created_ms);
CREATE INDEX effect_legacy_job ON effect (queue, job_id) WHERE job_created_ms = 0;
CREATE INDEX effect_queue_applied_at ON effect (queue, applied_at, job_id);
CREATE INDEX effect_idempotency_key ON effect (queue, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- The old rows' partition ends just past the newest creation time among them (the table is
-- locked: no row can come in meanwhile). The CHECK proves the bound, so ATTACH reads nothing.
DO $$
DECLARE
    bound bigint;
BEGIN
    SELECT coalesce(max(job_created_ms), 0) + 1 INTO bound FROM effect_before_partitions;
    EXECUTE format('ALTER TABLE effect_before_partitions ADD CONSTRAINT effect_before_partitions_bound CHECK (job_created_ms < %s)', bound);
    EXECUTE format('ALTER TABLE effect ATTACH PARTITION effect_before_partitions FOR VALUES FROM (MINVALUE) TO (%s)', bound);
END
$$;

CREATE TABLE effect_default PARTITION OF effect DEFAULT;
