package io.echomq.testkit;

import java.nio.file.Path;

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
     * Stops the server if it runs (SIGTERM), then starts it again on the same port with the same
     * environment and waits until the application answers. After {@link #killHard()} this is the
     * recovery of a crashed node.
     */
    @Override
    public void restart() {
        jvm.stop();
        jvm.launch();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + baseUrl() + (isRunning() ? ", pid " + pid() : "") + "]";
    }
}
