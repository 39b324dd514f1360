/**
 * What {@code bin/echomq-dev} runs the product with. {@link io.echomq.testkit.dev.DevServices} is a
 * program that finds or starts Valkey and PostgreSQL in the tests' order
 * ({@link io.echomq.testkit.services.ServiceDiscovery#inOrder}), but durable, on fixed loopback
 * ports and with data and passwords kept in a folder, and writes their settings to a file;
 * {@link io.echomq.testkit.dev.DevPayara} prints the Payara Micro command line of the tests'
 * launcher for the WAR on a fixed port.
 */
package io.echomq.testkit.dev;
