-- The resource adapter's outbox. Invariant: a job enqueued in a JTA transaction exists in Valkey
-- if and only if that transaction committed, exactly once.
--
-- JobQueueConnection.enqueue inside an active transaction inserts one row here through the
-- application's data source, in the application's transaction: a rollback leaves no row, a
-- commit leaves one. The relay (every node runs one per data source) takes rows with
-- SELECT ... FOR UPDATE SKIP LOCKED in a local transaction, enqueues each to Valkey with an
-- idempotency key, deletes them and commits. A relay that dies between the enqueue and the
-- commit leaves the row to be sent again; the key makes Valkey answer the first job.
--
-- The row holds the request as the caller gave it, already checked against the queue's limits,
-- so the relay is never refused (0 / NULL mean "the queue's default").
CREATE TABLE outbox (
    id              bigserial   PRIMARY KEY,
    -- The idempotency key of a request that carries none is 'outbox:' || relay_key: random, so
    -- unique across databases that relay to one Valkey.
    relay_key       uuid        NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    queue           text        NOT NULL,
    payload         text        NOT NULL,
    lane            text,
    idempotency_key text,
    max_attempts    integer     CHECK (max_attempts IS NULL OR max_attempts >= 1),
    -- Counts from the moment the relay enqueues the job, not from the insert.
    delay_ms        bigint      NOT NULL DEFAULT 0 CHECK (delay_ms >= 0),
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- Sweeps that tried this row and failed (Valkey unavailable), and the last failure.
    attempts        integer     NOT NULL DEFAULT 0,
    last_error      text
);
