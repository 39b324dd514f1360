/**
 * The adapter's outbound half: applications enqueue jobs through a
 * {@link io.echomq.api.JobQueueConnectionFactory} ({@link io.echomq.rar.outbound.JobQueueManagedConnectionFactory}).
 * Inside an active JTA transaction a job becomes a row of {@code echomq.outbox}, written through
 * the application's data source in that transaction; the {@link io.echomq.outbox.OutboxRelay}
 * sends committed rows to Valkey with an idempotency key and deletes them. Outside a transaction
 * a job goes to Valkey at once. Requests are checked in full by the engine's own rules before
 * anything is written ({@link io.echomq.outbox.JobRequests}).
 */
package io.echomq.rar.outbound;
