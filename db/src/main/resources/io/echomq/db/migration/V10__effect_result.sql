-- A handler may return a small JSON result (JobContext.result). It is written in the effect
-- transaction, into the row that records the job's effect, so it is exactly as durable and as
-- single as the effect: a rolled-back attempt leaves none, a redelivery that finds the effect
-- applied skips the handler and keeps the first result. NULL: the handler returned none (and
-- every row written before this column). The engine bounds it (64 KiB) before writing it; Valkey
-- keeps nothing of it.
ALTER TABLE effect ADD COLUMN result jsonb;
