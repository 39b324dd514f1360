/**
 * How {@link io.echomq.queue.QueueClient} talks to Valkey: the key names of a queue (all under
 * one hash tag, invariant 8), the scripts and their loading by SHA with a fallback to the source,
 * the connection that reaches a queue's slot on a cluster, and the reading of script replies.
 *
 * <p>Must not: be imported from outside {@code io.echomq.queue}; send a script that is not
 * idempotent twice on the caller's behalf (invariant 10).
 */
package io.echomq.queue.internal;
