-- The effect store. Invariant: a job's effect commits at most once.
--
-- One row per job whose effect committed, unique on (queue, job_id). A worker inserts it in
-- the same transaction as the handler's writes; a second attempt's insert finds the key
-- taken (or waits for the holder's transaction, then finds it taken) and skips the handler.
-- The row records which attempt applied the effect and when, which answers "why did this
-- run twice?" from the database alone.
CREATE TABLE effect (
    queue      text        NOT NULL,
    job_id     bigint      NOT NULL,
    attempt    integer     NOT NULL CHECK (attempt >= 1),
    applied_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT effect_pkey PRIMARY KEY (queue, job_id)
);

-- Retention of effect rows deletes by age.
CREATE INDEX effect_applied_at ON effect (applied_at);
