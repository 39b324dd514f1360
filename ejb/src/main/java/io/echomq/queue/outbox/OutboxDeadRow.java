package io.echomq.queue.outbox;

/**
 * One outbox row that Valkey refused too many times: its relays stopped trying it until an admin
 * retries or drops it ({@link OutboxCommand}).
 *
 * @param id          the row's id in its outbox (unique within one data source only)
 * @param queue       the queue the row was enqueued to
 * @param refusals    how many times Valkey refused it
 * @param lastError   the last refusal, as the relay saw it
 * @param createdAtMs when the row was written (the database's clock, ms since the epoch)
 * @param deadAtMs    when the relays gave up on it (the database's clock, ms since the epoch)
 */
public record OutboxDeadRow(long id, String queue, int refusals, String lastError, long createdAtMs, long deadAtMs) {
}
