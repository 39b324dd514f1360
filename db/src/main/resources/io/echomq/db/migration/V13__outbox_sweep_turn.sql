-- The outbox relays' timed sweeps take turns (issue 39: each duty once per cluster, not once per
-- instance). Every node's relay sweeps the shared outbox table on a timer (echomq.outbox.poll-ms)
-- for rows whose own node died before relaying them; the node that commits rows relays them
-- itself at once, woken by the commit. One timed sweep per interval over all the nodes is as
-- good as one per node, and N nodes sweeping each cost the database N times the queries.
--
-- So a relay sweeps on its timer only when it moves next_at on from a time already past: the
-- UPDATE's row lock lets exactly one of the relays that come at once do it. A relay that dies
-- holding the turn holds nothing: the next relay to come after next_at takes it.
CREATE TABLE outbox_sweep_turn (
    -- One row: the turn of the whole table.
    id      smallint    PRIMARY KEY CHECK (id = 1),
    next_at timestamptz NOT NULL
);
INSERT INTO outbox_sweep_turn (id, next_at) VALUES (1, '-infinity');
