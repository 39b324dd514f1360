/**
 * The engine outside an application server: a {@code main} configured by the WAR's keys in their
 * environment form, starting the same {@code RunningEngine}. Used by the process-kill proofs and
 * the scaling benchmark.
 */
package io.echomq.standalone;
