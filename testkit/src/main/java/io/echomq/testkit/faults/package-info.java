/**
 * Servers and connections that tests break on purpose: a TCP proxy that cuts, stalls or delays
 * the traffic to a server ({@link io.echomq.testkit.faults.FaultProxy}), and a PostgreSQL and a
 * Valkey of their own that a test kills with SIGKILL and restarts on the same port with the same
 * data ({@link io.echomq.testkit.faults.CrashablePostgres}, {@link io.echomq.testkit.faults.CrashableValkey}).
 */
package io.echomq.testkit.faults;
