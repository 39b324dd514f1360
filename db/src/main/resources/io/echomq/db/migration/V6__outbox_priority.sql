-- A job enqueued through the resource adapter's outbox keeps its priority (0 lowest to 9
-- highest, 4 by default as in JMS): the relay submits it with the row's priority. Rows written
-- before this column existed take the default, the priority they were asked with.
ALTER TABLE outbox ADD COLUMN priority smallint NOT NULL DEFAULT 4 CHECK (priority BETWEEN 0 AND 9);
