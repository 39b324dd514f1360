/**
 * What the resource adapter's outbox relays share with the consoles through Valkey: each
 * outbox's gauges ({@link io.echomq.queue.outbox.OutboxGauge}), its dead rows
 * ({@link io.echomq.queue.outbox.OutboxDeadRows}) and the admins' commands on them
 * ({@link io.echomq.queue.outbox.OutboxCommand}), all through {@link io.echomq.queue.outbox.OutboxAdmin}.
 * The WAR that shows them cannot reach the applications' databases; the relays can.
 *
 * <p>Not queue state: plain commands under a hash tag of their own, no script, every entry
 * expiring unless published again, so an outbox whose relays stopped disappears.
 */
package io.echomq.queue.outbox;
