package io.echomq.queue.outbox;

import io.echomq.queue.QueueClient;

/**
 * One outbox's gauges as its relays last published them ({@link OutboxAdmin#publishGauge}).
 *
 * @param source      the outbox's name: the JNDI name of the data source that holds it
 * @param depth       rows waiting to be relayed
 * @param oldestAgeMs age of the oldest waiting row (0 when none waits)
 * @param updatedAtMs when a relay published these numbers (its clock, ms since the epoch)
 */
public record OutboxGauge(String source, long depth, long oldestAgeMs, long updatedAtMs) {
}
