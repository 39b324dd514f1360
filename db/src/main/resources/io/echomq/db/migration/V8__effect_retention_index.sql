-- The effect retention reads a queue's rows in the order (applied_at, job_id), from where its walk
-- stopped up to the retention age. The index on applied_at alone could bound that walk by time
-- only: it read every other queue's rows in the range too, and on a table or queue too new to
-- have been analyzed PostgreSQL combined it with the primary key and read all of the queue's
-- index entries (about 3,000 pages at 200,000 rows) to find a hundred rows. This index serves the
-- whole walk as one range, in its order, whatever the statistics; it replaces the old one,
-- which nothing else reads.
CREATE INDEX IF NOT EXISTS effect_queue_applied_at ON effect (queue, applied_at, job_id);
DROP INDEX IF EXISTS effect_applied_at;
