-- The effect key names the job by queue, id AND creation time. Invariant: a job's effect
-- commits at most once, and a different job is never taken for it.
--
-- Job ids come from INCR on the queue's primary. A failover that loses increments the
-- primary had acknowledged hands the same id to a new job; keyed by (queue, job_id) alone,
-- the effect store would skip that new job as "already applied" and its effect would never
-- happen. The job's creation time (milliseconds on the Valkey server clock, set once at
-- enqueue and returned by every claim) tells the two apart: a reused id gets a new time.
--
-- Rows recorded before this migration do not know their job's creation time: they keep
-- job_created_ms = 0, and the worker treats such a row as the effect of whichever job has its
-- id (as before). Workers of the old version cannot insert into this table any more (their
-- ON CONFLICT names the old key): stop them before this migration runs.
ALTER TABLE effect ADD COLUMN job_created_ms bigint NOT NULL DEFAULT 0 CHECK (job_created_ms >= 0);
ALTER TABLE effect ALTER COLUMN job_created_ms DROP DEFAULT;
ALTER TABLE effect DROP CONSTRAINT effect_pkey;
ALTER TABLE effect ADD CONSTRAINT effect_pkey PRIMARY KEY (queue, job_id, job_created_ms);
