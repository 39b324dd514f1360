package io.echomq.testkit.appserver;

import java.net.URI;
import java.nio.file.Path;

/**
 * A Jakarta EE server running the WAR in a child JVM on loopback, for end-to-end tests: Payara
 * Micro ({@link PayaraMicroServer}), WildFly ({@link WildFlyServer}) or Open Liberty
 * ({@link OpenLibertyServer}). Each is started by its builder's {@code start()}, which returns
 * only once the application answers; {@link AppServers} starts any of them by name.
 */
public interface AppServer extends AutoCloseable {

    /** E.g. {@code wildfly}: what the {@code portability server=} lines print. */
    String name();

    /** The server's own version, read from its files (e.g. {@code 35.0.1.Final}). */
    String version();

    /** E.g. {@code http://127.0.0.1:41234/echomq}, without a trailing slash. */
    String baseUrl();

    /** {@link #baseUrl()} plus {@code path} (with or without a leading slash). */
    default URI uri(String path) {
        return URI.create(baseUrl() + (path.startsWith("/") ? path : "/" + path));
    }

    int port();

    /** The process id of the server JVM (of the latest start, after a {@link #restart()}). */
    long pid();

    /** The server's console output, all starts appended. */
    Path logFile();

    boolean isRunning();

    /** Milliseconds from launching the JVM (of the latest start) until the application answered. */
    long readyMs();

    /** SIGKILL of the server JVM, as a crash would: no shutdown, no undeploy. Returns once it is gone. */
    void killHard();

    /** An orderly shutdown (SIGTERM), SIGKILL after a grace period. Returns once the JVM is gone. */
    void stop();

    /** Stops the server if it runs, then starts it again on the same port and waits until the application answers. */
    void restart();

    @Override
    default void close() {
        stop();
    }
}
