/**
 * The HTTP API's resources: submitting, listing and steering jobs and queues, leases, the
 * throughput history, the event stream, the session, and the demo's ledger and lab (404 where
 * the demo is off). Requests are checked here or by the engine; bad input is an
 * {@code InvalidRequestException}, answered as a 400 problem naming the field. Every JSON body
 * is a record bound by {@code BodyBinding} (through {@link JsonBodyReader}), which owns what
 * JSON each field's type takes; the engine owns each value's range.
 *
 * <p>Must not: build error bodies of its own (the {@code problem} package maps exceptions), or
 * change a job's state other than through the engine's scripts.
 */
package io.echomq.web.api;
