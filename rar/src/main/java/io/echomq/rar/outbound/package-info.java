/**
 * The adapter's outbound half: applications enqueue jobs through a
 * {@link io.echomq.api.JobQueueConnectionFactory} ({@link io.echomq.rar.outbound.JobQueueManagedConnectionFactory}).
 * Inside an active JTA transaction a job becomes a row of {@code echomq.outbox}, written through
 * the application's data source in that transaction by the engine's one outbox
 * ({@link io.echomq.outbox.OutboxWriter}); the engine's {@link io.echomq.outbox.OutboxRelay}, run by
 * the adapter for each data source it uses, sends committed rows to Valkey with an idempotency key
 * and deletes them. Outside a transaction a job goes to Valkey at once. A message-driven bean's
 * follow-ups ({@code JobQueueConnection.followUp}) are such rows, keyed by the engine's rule.
 * Requests are checked in full by the engine's own rules before anything is written
 * ({@link io.echomq.outbox.JobRequests}).
 */
package io.echomq.rar.outbound;
