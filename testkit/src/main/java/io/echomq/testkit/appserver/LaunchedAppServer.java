package io.echomq.testkit.appserver;

import io.echomq.testkit.services.FreePort;
import io.echomq.testkit.services.ServiceDirectories;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

/**
 * What the launchers share: the server JVM, its loopback port and the WAR's context root; and
 * {@link Builder}, what every launcher is told before the start (archives, environment, system
 * properties, readiness, timeout) and how it starts.
 */
abstract class LaunchedAppServer implements AppServer {

    /** Where the product's WAR is deployed by default. */
    static final String ECHOMQ_CONTEXT_ROOT = "echomq";
    /** The product's URL whose 200 means "deployed", relative to the context root. */
    static final String ECHOMQ_READINESS_PATH = "/api/about";

    private final int port;
    private final String contextRoot;
    final ServerJvm jvm;

    LaunchedAppServer(int port, String contextRoot, ServerJvm jvm) {
        this.port = port;
        this.contextRoot = contextRoot;
        this.jvm = jvm;
    }

    /** E.g. {@code http://127.0.0.1:41234/echomq}; the root context is {@code http://127.0.0.1:41234}. */
    static String baseUrl(int port, String contextRoot) {
        return "http://127.0.0.1:" + port + (contextRoot.isEmpty() ? "" : "/" + contextRoot);
    }

    /** The version in a file or folder name such as {@code wildfly-35.0.1.Final}: what follows {@code prefix}, less {@code suffix}. */
    static Optional<String> versionInName(Path path, String prefix, String suffix) {
        String name = path.getFileName().toString();
        return name.startsWith(prefix) && name.endsWith(suffix)
                ? Optional.of(name.substring(prefix.length(), name.length() - suffix.length()))
                : Optional.empty();
    }

    @Override
    public String baseUrl() {
        return baseUrl(port, contextRoot);
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

    /**
     * What every launcher is told before the start, and the start itself: the archives (checked
     * to exist), the environment and system properties of the server, the path whose 200 means
     * "deployed", the start-up timeout, and the port (a free one, with the retry of
     * {@link #launchOnFreePort}, unless one is chosen). A launcher's builder adds only what its
     * server does differently and prepares the server for a port ({@link #prepare}).
     *
     * @param <B> the launcher's builder, which each setter returns
     * @param <S> the launcher's server
     */
    abstract static class Builder<B extends Builder<B, S>, S extends LaunchedAppServer> {

        final List<Path> archives;
        /** The archives' file names in the server, in order; a single WAR may be renamed to fix its context root. */
        final List<String> deployedNames = new ArrayList<>();
        final Map<String, String> env = new LinkedHashMap<>();
        final Map<String, String> systemProperties = new LinkedHashMap<>();
        String readinessPath;
        Duration startupTimeout = ServerJvm.DEFAULT_STARTUP_TIMEOUT;
        /** 0: a free loopback port. */
        int port;
        private final String folder;

        /** @param folder the server's folder name before {@code -<port>}, e.g. {@code wildfly} */
        Builder(List<Path> archives, String readinessPath, String folder) {
            this.folder = folder;
            this.archives = archives.stream().map(a -> Objects.requireNonNull(a, "archive").toAbsolutePath().normalize()).toList();
            this.archives.forEach(a -> deployedNames.add(a.getFileName().toString()));
            this.readinessPath = readinessPath;
        }

        abstract B self();

        /** The single archive, the product's WAR, deployed as {@code echomq.war} at {@code /echomq}, ready once {@code /api/about} answers. */
        B asTheEchoMqWar() {
            deployedNames.set(0, ECHOMQ_CONTEXT_ROOT + ".war");
            return readinessPath(ECHOMQ_READINESS_PATH);
        }

        /**
         * The server for {@code port}, ready to launch: its files written in {@code directory} (fresh,
         * {@code <folder>-<port>} under the services' folder), its command line known.
         */
        abstract S prepare(int port, Path directory);

        private S prepare(int port) {
            return prepare(port, ServiceDirectories.fresh(folder + "-" + port));
        }

        /** Environment variables for the server (the application reads them through MicroProfile Config). */
        public B env(Map<String, String> variables) {
            variables.forEach(this::env);
            return self();
        }

        public B env(String name, String value) {
            env.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, () -> "value of " + name));
            return self();
        }

        /** A system property of the server's JVM, e.g. a fault hook or the adapter's settings. */
        public B systemProperty(String key, String value) {
            systemProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, () -> "value of " + key));
            return self();
        }

        /** The path (relative to {@link AppServer#baseUrl()}) that must answer 200 before {@link #start()} returns. */
        public B readinessPath(String path) {
            this.readinessPath = path.startsWith("/") ? path : "/" + path;
            return self();
        }

        public B startupTimeout(Duration timeout) {
            this.startupTimeout = Objects.requireNonNull(timeout, "timeout");
            return self();
        }

        /** The context root: the last WAR's name in the server without {@code .war}; none without a WAR. */
        String contextRoot() {
            String contextRoot = "";
            for (String name : deployedNames) {
                if (name.endsWith(".war")) {
                    contextRoot = name.substring(0, name.length() - ".war".length());
                }
            }
            return contextRoot;
        }

        /** The URL whose 200 means the application answers, on {@code port}. */
        URI readiness(int port) {
            return URI.create(baseUrl(port, contextRoot()) + readinessPath);
        }

        /** The archives exist, and what {@link #checkBeforeStart()} asks for. */
        final void checkArchivesAndMore() {
            for (Path archive : archives) {
                if (!Files.isRegularFile(archive)) {
                    throw new IllegalStateException("no archive at " + archive + " (build it first: mvn -pl <module> -am package)");
                }
            }
            checkBeforeStart();
        }

        /** What must exist before anything starts, besides the archives; by default nothing. */
        void checkBeforeStart() {
        }

        /**
         * Starts the server and waits until the application answers.
         *
         * @throws IllegalStateException when the start or a deployment failed (the message ends with the server's log)
         */
        public S start() {
            checkArchivesAndMore();
            return port > 0 ? launchOnPort(port, this::prepare) : launchOnFreePort(FreePort::onLoopback, this::prepare);
        }
    }

    /** A server run from its unpacked distribution (WildFly, Open Liberty), which its version is read from. */
    abstract static class Unpacked extends LaunchedAppServer {

        final Path home;

        Unpacked(Path home, int port, String contextRoot, ServerJvm jvm) {
            super(port, contextRoot, jvm);
            this.home = home;
        }
    }

    /**
     * A builder for a server unpacked from its distribution (WildFly, Open Liberty): a system
     * property names the folder, and a file in it ({@code marker}) proves it is unpacked there.
     */
    abstract static class UnpackedServerBuilder<B extends UnpackedServerBuilder<B, S>, S extends Unpacked>
            extends Builder<B, S> {

        private final String marker;
        private String homeProperty;

        UnpackedServerBuilder(List<Path> archives, String readinessPath, String folder, String homeProperty, String marker) {
            super(archives, readinessPath, folder);
            this.homeProperty = homeProperty;
            this.marker = marker;
        }

        /** The system property naming the unpacked distribution, e.g. the newest release's. */
        public B homeProperty(String property) {
            this.homeProperty = Objects.requireNonNull(property, "property");
            return self();
        }

        /** The unpacked distribution; a missing one fails the start, saying how to get it. */
        Path home() {
            return ServerInstall.home(homeProperty, marker);
        }

        @Override
        void checkBeforeStart() {
            home();
        }

        @Override
        final S prepare(int port, Path directory) {
            return prepare(home(), port, directory);
        }

        /** {@link Builder#prepare(int, Path)} for the distribution in {@code home}. */
        abstract S prepare(Path home, int port, Path directory);
    }
}
