/**
 * The WAR's own metrics, the same on every server: Micrometer meters in a Prometheus registry
 * inside the WAR, served as Prometheus text at {@code /metrics} under the context root; per-queue
 * counters fed by the engine's worker and maintenance listeners; the per-minute throughput
 * history the console plots.
 *
 * <p>Must not: block or fail a worker (listener calls are cheap and never throw into the
 * engine), or depend on a server's own metrics subsystem.
 */
package io.echomq.web.metrics;
