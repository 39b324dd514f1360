-- A row Valkey refuses no longer stands in front of the others. Before this, the relay took the
-- oldest 100 rows every sweep, and 100 rows that Valkey kept refusing (a payload over a limit
-- lowered by a rolling deploy, a lane written past the checks) were taken again every time:
-- nothing behind them was ever relayed.
--
-- A refusal of the row itself (not Valkey being unreachable, which stops the whole sweep and
-- costs no row anything) counts in refusals and puts the row off until next_attempt_at, later
-- after each refusal; after the relay's bounded number of refusals the row is dead (dead_at set):
-- no relay takes it again until an admin retries it (refusals back to 0, dead_at cleared) or
-- drops it (deleted). Relays report the dead rows to Valkey, where the console reads them and
-- leaves the admins' commands (docs/ADAPTER.md, "Refused and dead rows").
--
-- attempts keeps counting every sweep that failed on the row, whatever the reason; last_error
-- keeps the last failure of either kind.
ALTER TABLE outbox
    ADD COLUMN refusals        integer     NOT NULL DEFAULT 0,
    -- NULL: at once. Set on the database's clock, so every relay reads it the same way.
    ADD COLUMN next_attempt_at timestamptz,
    ADD COLUMN dead_at         timestamptz;

-- The relays' scan, oldest first, skips the dead rows without reading them.
CREATE INDEX outbox_relayable ON outbox (id) WHERE dead_at IS NULL;
-- The report of the oldest dead rows.
CREATE INDEX outbox_dead ON outbox (id) WHERE dead_at IS NOT NULL;
