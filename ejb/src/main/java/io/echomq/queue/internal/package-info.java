/**
 * How the queue's roles talk to Valkey: the key names of a queue (all under one hash tag,
 * invariant 8), the scripts and their loading by SHA with a fallback to the source, the
 * connection that reaches a queue's slot on a cluster, the reading of script replies, the checks
 * of what callers hand in, and plain (non-script) reads and writes.
 *
 * <p>Must not: be imported from outside {@code io.echomq.queue} and its feature packages; send a
 * script that is not idempotent twice on the caller's behalf (invariant 10).
 */
package io.echomq.queue.internal;
