package io.echomq.testkit.services;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.function.IntSupplier;

/**
 * A loopback port that was free a moment ago. Another process can take it before our server
 * binds, so starters run through {@link #retrying} and report {@link PortTaken} when that happens.
 */
public final class FreePort {

    private static final int ATTEMPTS = 3;

    private FreePort() {
    }

    public static int onLoopback() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }

    public static <T> T retrying(StartOnPort<T> start) throws Exception {
        return retrying(FreePort::onLoopback, start);
    }

    /** {@link #retrying(StartOnPort)} with the ports taken from {@code ports}: a test's way to hand in a taken one. */
    public static <T> T retrying(IntSupplier ports, StartOnPort<T> start) throws Exception {
        for (int attempt = 1; ; attempt++) {
            int port = ports.getAsInt();
            try {
                return start.on(port);
            } catch (PortTaken e) {
                if (attempt == ATTEMPTS) {
                    throw new IllegalStateException("port taken " + ATTEMPTS + " times in a row", e);
                }
            }
        }
    }

    /**
     * True when a server log says the port was taken between our check and its bind: the JDK's
     * and the C library's words (Payara, WildFly, Valkey), PostgreSQL's, Liberty's CWWKO0221E.
     */
    public static boolean logSaysPortTaken(String log) {
        return log.contains("Address already in use") || log.contains("could not bind")
                || log.contains("The port might already be in use");
    }

    @FunctionalInterface
    public interface StartOnPort<T> {
        T on(int port) throws Exception;
    }

    /** Someone else bound the port first; worth another try on a new port. */
    public static final class PortTaken extends Exception {

        private static final long serialVersionUID = 1L;

        public PortTaken(String detail) {
            super(detail);
        }
    }
}
