package io.echomq.testkit;

import java.nio.file.Path;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

/** What the launchers share: the server JVM, its loopback port and the WAR's context root. */
abstract class LaunchedAppServer implements AppServer {

    private final int port;
    private final String contextRoot;
    final ServerJvm jvm;

    LaunchedAppServer(int port, String contextRoot, ServerJvm jvm) {
        this.port = port;
        this.contextRoot = contextRoot;
        this.jvm = jvm;
    }

    @Override
    public String baseUrl() {
        return "http://127.0.0.1:" + port + (contextRoot.isEmpty() ? "" : "/" + contextRoot);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public long pid() {
        return jvm.pid();
    }

    @Override
    public Path logFile() {
        return jvm.logFile();
    }

    @Override
    public boolean isRunning() {
        return jvm.isRunning();
    }

    @Override
    public long readyMs() {
        return jvm.readyMs();
    }

    @Override
    public void killHard() {
        jvm.killHard();
    }

    @Override
    public void stop() {
        jvm.stop();
    }

    /**
     * How every launcher starts its server: {@code onPort} prepares one for a port picked from
     * {@code ports} (the HTTP port, the only one a test server opens), and it is launched. When
     * another process bound that port between the pick and the server's bind, the server is
     * killed and prepared again on a new port ({@link FreePort#retrying}): a race on a busy
     * machine, never a reason for a test to fail.
     */
    static <S extends LaunchedAppServer> S launchOnFreePort(IntSupplier ports, IntFunction<S> onPort) {
        try {
            return FreePort.retrying(ports, port -> {
                S server = onPort.apply(port);
                server.jvm.launch();
                return server;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** Launches the server {@code onPort} prepares on a port the caller chose: a taken one fails the start, no retry. */
    static <S extends LaunchedAppServer> S launchOnPort(int port, IntFunction<S> onPort) {
        S server = onPort.apply(port);
        try {
            server.jvm.launch();
        } catch (FreePort.PortTaken e) {
            throw new IllegalStateException("port " + port + " is taken: " + e.getMessage(), e);
        }
        return server;
    }

    /**
     * Stops the server if it runs (SIGTERM), then starts it again on the same port with the same
     * environment and waits until the application answers. After {@link #killHard()} this is the
     * recovery of a crashed node.
     */
    @Override
    public void restart() {
        jvm.stop();
        try {
            jvm.launch();
        } catch (FreePort.PortTaken e) {
            // The port is the server's address for its clients: a restart keeps it or fails.
            throw new IllegalStateException("cannot restart " + this + ": another process took port " + port, e);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + baseUrl() + (isRunning() ? ", pid " + pid() : "") + "]";
    }
}
