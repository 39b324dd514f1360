-- Two things an outbox row may carry besides its job.
--
-- flow: the row is the root of a flow (JobQueueConnection.submitFlow inside a transaction). The
-- root's own fields are the row's columns; this column holds its children, each with its queue,
-- payload, lane, max attempts, priority, onFailure and children, as a JSON array, already
-- checked by the queue's rules when the row was written. The relay submits the whole flow under
-- the row's idempotency key (the request's own, else 'outbox:' || relay_key), so a row sent again
-- after a crash answers the first flow and makes only the children still missing: one flow.
-- NULL for a plain job.
--
-- creation_context: the W3C trace context (traceparent, then a newline and the tracestate when
-- there is one) of the span in which the row was written, with telemetry on; the relay sends the
-- job in that trace, so the job's own stored context, and every delivery of it, join the trace
-- of the transaction that made it. NULL when telemetry was off.
ALTER TABLE outbox
    ADD COLUMN flow             text,
    ADD COLUMN creation_context text;
