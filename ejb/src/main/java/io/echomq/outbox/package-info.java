/**
 * The one outbox of EchoMQ: jobs written as rows of {@code echomq.outbox} in a transaction that
 * also writes something else, sent to Valkey once it commits. Its writers are the resource
 * adapter's connection factories (in the application's JTA transaction) and every worker's
 * handlers (their follow-up jobs, in the job's effect transaction, see {@link io.echomq.outbox.Outbox});
 * its relay ({@link io.echomq.outbox.OutboxRelay}) runs wherever the engine runs, once per data
 * source: the WAR and the standalone worker for the engine's own database, the adapter for each
 * application data source it uses. Requests are checked in full by the queue's own rules before
 * anything is written ({@link io.echomq.outbox.JobRequests}).
 *
 * <p>Must not: decide when a transaction commits (its callers' transactions do), or touch Valkey
 * but through the queue's roles.
 */
package io.echomq.outbox;
