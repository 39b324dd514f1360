/**
 * The demo: a ledger charge handler bound to {@code payments}, on only in dev mode or when
 * {@code echomq.demo.enabled} is true, and the ledger's totals for checking exactly-once from
 * outside. Not part of the engine: the engine never imports it.
 */
package io.echomq.demo;
