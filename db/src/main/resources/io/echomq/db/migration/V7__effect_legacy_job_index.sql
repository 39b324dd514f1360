-- Every effect insert first checks that no row written before V3 (job_created_ms = 0, when a
-- row named its job by id alone) stands for the job. Through the primary key (queue, job_id,
-- job_created_ms) that check can only be planned well when PostgreSQL's statistics know how many
-- rows the queue has. On a table or a queue too new to have been analyzed, the cached plan reads
-- every index entry of the queue on every insert: measured in the soak, a new queue at 6,800
-- jobs/s slowed to 4,000 within 40 s and piled up a 16-second backlog until autovacuum's
-- ANALYZE replanned it. This index holds only those old rows (none in a database created
-- since V3), so the check reads next to nothing whatever the plan, and inserts of today's rows,
-- outside its predicate, never touch it.
CREATE INDEX IF NOT EXISTS effect_legacy_job ON effect (queue, job_id) WHERE job_created_ms = 0;
