package io.echomq.testkit.dev;

import io.echomq.testkit.services.ChildProcess;
import io.echomq.testkit.services.ChildProcessValkey;
import io.echomq.testkit.services.ContainerServices;
import io.echomq.testkit.services.EmbeddedRedisBinary;
import io.echomq.testkit.services.EnvironmentSetting;
import io.echomq.testkit.services.EnvironmentValkey;
import io.echomq.testkit.services.ServiceDiscovery;
import io.echomq.testkit.services.StartedValkey;
import io.echomq.testkit.services.TestkitConsole;
import io.echomq.testkit.services.ValkeyAddress;
import io.echomq.testkit.services.ValkeyProbe;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * The dev launcher's Valkey: durable, on a fixed loopback port, data and password in
 * {@code <folder>/valkey}. See {@link DevServices} for the order in which a server is found.
 */
final class DevValkey {

    static final String URL_VARIABLE = "ECHOMQ_VALKEY_URL";
    static final String PORT_VARIABLE = "ECHOMQ_DEV_VALKEY_PORT";

    /** Replaying a large AOF takes a while; a server that is still loading answers PING with an error. */
    private static final Duration STARTUP = Duration.ofSeconds(120);

    private DevValkey() {
    }

    /**
     * Finds or starts the dev Valkey in {@link ServiceDiscovery#inOrder the tests' order}: given in
     * the environment, or this folder's server already running on the port (both final), else a
     * container, else a child process.
     */
    static DevServices.Store start(Path directory, int port, Map<String, String> environment) throws Exception {
        Optional<String> url = DevServices.value(environment, URL_VARIABLE);
        Optional<Callable<DevServices.Store>> given = url.map(value -> () -> fromEnvironment(value));
        // Only a server of our own needs the folder, its password and its configuration.
        Own own = url.isPresent() ? null : Own.prepare(directory, port);
        if (given.isEmpty() && DevServices.portInUse(port)) {
            given = Optional.of(() -> reuse(directory, port, own.client(), own.env()));
        }
        return ServiceDiscovery.inOrder("Valkey", "No Valkey for the dev launcher.", given, URL_VARIABLE + ": not set",
                new ServiceDiscovery.Source<>("Testcontainers (" + ContainerServices.VALKEY_IMAGE + ")",
                        () -> DevContainers.valkey(directory, port, own.client(), own.env())),
                ServiceDiscovery.valkeyChildProcesses(
                        program -> new ServiceDiscovery.Source<>(program + " on PATH",
                                () -> child(ServiceDiscovery.onPath(program), program, directory, port, own.client(), own.env())),
                        new ServiceDiscovery.Source<>("Redis 6.2 binary inside com.github.codemonstur:embedded-redis", () -> {
                            Path binary = EmbeddedRedisBinary.extractInto(Files.createDirectories(directory.resolve("bin")));
                            DevServices.Store store = child(binary, "embedded-redis redis-server", directory, port, own.client(), own.env());
                            TestkitConsole.loudWarning(
                                    "Valkey: no valkey-server or redis-server on PATH; running the Redis 6.2 binary bundled in embedded-redis.",
                                    "Good enough to try EchoMQ; not Valkey 8. Install valkey-server (or redis-server >= 7.2) for real use,",
                                    "or set " + URL_VARIABLE + " to a server of yours. Its AOF may not be readable by an older server.");
                            return store;
                        })),
                List.of("set " + URL_VARIABLE + "=redis://:password@host:6379 to use a server of yours",
                        "install valkey-server or redis-server on PATH (e.g. the distribution's redis-server package)",
                        "keep com.github.codemonstur:embedded-redis on the class path (a dependency of echomq-testkit)"));
    }

    private static DevServices.Store fromEnvironment(String url) {
        StartedValkey valkey = EnvironmentValkey.connect(url);
        return DevServices.Store.given("Valkey", valkey.description().replace(EnvironmentSetting.VALKEY_URL, URL_VARIABLE)
                .replace(" (shared: never flushed)", ""), Map.of(URL_VARIABLE, url));
    }

    /** What a server of our own is reached with: the password kept in the folder, and the URL the application gets. */
    private record Own(JedisClientConfig client, Map<String, String> env) {

        static Own prepare(Path directory, int port) throws IOException {
            DevServices.privateDirectory(directory);
            String password = DevServices.secret(directory.resolve("password"));
            // The password goes in a config file (mode 600), not on the command line where `ps` shows it.
            DevServices.writePrivate(directory.resolve("valkey.conf"),
                    "# Rewritten by DevServices at every start; the password is kept in ./password\n"
                            + "requirepass " + password + "\n");
            String url = ValkeyAddress.format(DevServices.LOOPBACK, port, Optional.empty(), Optional.of(password));
            return new Own(ValkeyProbe.config(Optional.empty(), Optional.of(password)), Map.of(URL_VARIABLE, url));
        }
    }

    private static DevServices.Store child(Path binary, String origin, Path directory, int port, JedisClientConfig client,
                                           Map<String, String> env) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(
                binary.toString(),
                directory.resolve("valkey.conf").toString(),
                "--port", Integer.toString(port),
                "--bind", DevServices.LOOPBACK,
                "--protected-mode", "yes",
                "--daemonize", "no",
                "--dir", directory.toString()));
        command.addAll(ChildProcessValkey.DURABLE);
        ChildProcess server = ChildProcess.start(origin + " on port " + port, command, directory, directory.resolve("valkey.log"),
                ChildProcess.StopSignal.TERM, Optional.empty());
        try {
            ValkeyProbe.awaitPong(DevServices.LOOPBACK, port, client, STARTUP, Optional.of(server));
        } catch (RuntimeException e) {
            throw DevServices.failedStart(server, e, port, PORT_VARIABLE);
        }
        ValkeyProbe.ServerInfo info = ValkeyProbe.serverInfo(DevServices.LOOPBACK, port, client);
        String description = origin + " " + info.version() + info.differenceFromTarget() + ", child process pid " + server.pid()
                + " on " + DevServices.LOOPBACK + ":" + port + ", AOF fsync always, noeviction; data and log in " + directory;
        return new DevServices.Store("Valkey", description, env, Optional.of(server), server::stop);
    }

    /** A server answering with our password on our port: one an earlier run left behind. Used, never stopped. */
    private static DevServices.Store reuse(Path directory, int port, JedisClientConfig client, Map<String, String> env) {
        try {
            ValkeyProbe.awaitPong(DevServices.LOOPBACK, port, client, Duration.ofSeconds(5), Optional.empty());
        } catch (RuntimeException e) {
            throw new IllegalStateException("port " + port + " is in use by something that does not accept the password in "
                    + directory.resolve("password") + "; stop it, or set " + PORT_VARIABLE + " or " + URL_VARIABLE
                    + " (" + e.getMessage() + ")", e);
        }
        // Only the server whose data is in our folder is ours to use.
        Path running = Path.of(configValue(port, client, "dir"));
        if (!DevPostgres.sameFile(running, directory)) {
            throw new IllegalStateException("port " + port + " is in use by a server whose data is in " + running + ", not "
                    + directory + "; stop it, or set " + PORT_VARIABLE + " or " + URL_VARIABLE);
        }
        ValkeyProbe.ServerInfo info = ValkeyProbe.serverInfo(DevServices.LOOPBACK, port, client);
        String settings = durabilitySettings(port, client);
        return DevServices.Store.given("Valkey", info.serverName() + " " + info.version() + " already running on "
                + DevServices.LOOPBACK + ":" + port + " with its data in " + directory + " (" + settings
                + "); reused, and left running on exit", env);
    }

    private static String configValue(int port, JedisClientConfig client, String name) {
        try (Jedis jedis = new Jedis(new HostAndPort(DevServices.LOOPBACK, port), client)) {
            return String.valueOf(jedis.configGet(name).get(name));
        }
    }

    /** What a server we did not start runs with, so that a weaker setting is visible. */
    private static String durabilitySettings(int port, JedisClientConfig client) {
        try (Jedis jedis = new Jedis(new HostAndPort(DevServices.LOOPBACK, port), client)) {
            // One name per CONFIG GET: Redis before 7 takes only one.
            Map<String, String> values = new java.util.HashMap<>();
            for (String name : List.of("appendonly", "appendfsync", "maxmemory-policy")) {
                values.putAll(jedis.configGet(name));
            }
            String text = "appendonly " + values.get("appendonly") + ", appendfsync " + values.get("appendfsync")
                    + ", maxmemory-policy " + values.get("maxmemory-policy");
            if (!"yes".equals(values.get("appendonly")) || !"noeviction".equals(values.get("maxmemory-policy"))) {
                TestkitConsole.loudWarning("Valkey on port " + port + " runs with " + text + ":",
                        "acknowledged jobs can be lost or evicted. Stop it and run again to get a server started with "
                                + String.join(" ", ChildProcessValkey.DURABLE));
            }
            return text;
        } catch (RuntimeException e) {
            return "settings unknown: " + e.getMessage();
        }
    }
}
