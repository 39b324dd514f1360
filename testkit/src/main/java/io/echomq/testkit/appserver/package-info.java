/**
 * The packaged WAR (or a resource adapter with its applications) on a real Jakarta EE server in a
 * child JVM on loopback, for end-to-end tests: {@link io.echomq.testkit.appserver.PayaraMicroServer},
 * {@link io.echomq.testkit.appserver.WildFlyServer}, {@link io.echomq.testkit.appserver.OpenLibertyServer},
 * or any of them by name ({@link io.echomq.testkit.appserver.AppServers}). One builder base
 * ({@code LaunchedAppServer.Builder}) owns what every launcher is told (archives, environment,
 * system properties, readiness path, timeout) and the start on a free port, retried on a new
 * port when another process takes it first; each launcher adds its command line, its files and
 * its failure marker. {@code ServerJvm} runs the JVM, waits for the application to answer and
 * stops or kills it by pid.
 */
package io.echomq.testkit.appserver;
