/**
 * Real servers for tests: a JUnit 5 extension ({@link io.echomq.testkit.RealServices}, or the
 * {@link io.echomq.testkit.WithRealServices} annotation) that injects a
 * {@link io.echomq.testkit.ValkeyService} and a {@link io.echomq.testkit.PostgresService}, each
 * found once per test run and shared by every test class; a test that finds no server fails
 * ({@link io.echomq.testkit.ServiceUnavailableException}), it never skips.
 *
 * <p>The rest of the testkit, by purpose:
 * <ul>
 *   <li>{@link io.echomq.testkit.services}: how each server is found or started (the order, the
 *       environment variables, the child processes and their folders);</li>
 *   <li>{@link io.echomq.testkit.appserver}: the packaged WAR on Payara Micro, WildFly or Open
 *       Liberty in a child JVM, for end-to-end tests;</li>
 *   <li>{@link io.echomq.testkit.faults}: servers and proxies that tests crash or cut off;</li>
 *   <li>{@link io.echomq.testkit.dev}: the program {@code bin/echomq-dev} runs for its Valkey,
 *       PostgreSQL and Payara Micro command line;</li>
 *   <li>{@link io.echomq.testkit.property}: property tests over random operation sequences.</li>
 * </ul>
 */
package io.echomq.testkit;
