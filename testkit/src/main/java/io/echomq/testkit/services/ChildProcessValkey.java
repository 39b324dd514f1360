package io.echomq.testkit.services;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.JedisClientConfig;

/**
 * A private server process on a free loopback port, with its own random password, no
 * persistence, and data and log in its own directory. Private means the tests may do anything to
 * it; the password means a test that forgets to authenticate fails here as it would in production.
 */
public final class ChildProcessValkey {

    private static final String LOOPBACK = "127.0.0.1";
    private static final Duration STARTUP = Duration.ofSeconds(10);

    private ChildProcessValkey() {
    }

    /** Where the server binary comes from, resolved inside the server's fresh directory. */
    @FunctionalInterface
    interface Binary {
        Path in(Path serviceDirectory) throws Exception;
    }

    /** Test data only: nothing written to disk, and never a key evicted (as production must be configured). */
    /**
     * What a Valkey that must keep every acknowledged job runs with (the dev launcher's, a test's
     * crashable one): an acknowledged job survives a crash, and nothing is evicted.
     */
    public static final List<String> DURABLE = List.of(
            "--appendonly", "yes",
            "--appendfsync", "always",
            "--maxmemory-policy", "noeviction");

    static final List<String> EPHEMERAL = List.of("--appendonly", "no", "--maxmemory-policy", "noeviction");

    /** What makes a server private to the tests: its own password and directory, no snapshots, in the foreground. */
    static List<String> privateServerOptions(Path directory, String password) {
        return List.of(
                "--requirepass", password,
                "--dir", directory.toString(),
                "--save", "",
                "--daemonize", "no",
                "--protected-mode", "yes");
    }

    /** A private server on loopback: its port, then {@link #privateServerOptions}. */
    public static List<String> command(Path executable, int port, String password, Path directory) {
        List<String> command = new ArrayList<>(List.of(executable.toString(), "--port", Integer.toString(port), "--bind", LOOPBACK));
        command.addAll(privateServerOptions(directory, password));
        return command;
    }

    static StartedValkey start(String origin, Binary binary) throws Exception {
        return FreePort.retrying(port -> startOn(port, origin, binary));
    }

    private static StartedValkey startOn(int port, String origin, Binary binary) throws Exception {
        Path directory = ServiceDirectories.fresh("valkey-" + port);
        Path executable = binary.in(directory);
        String password = RandomSecret.hex(16);
        List<String> command = command(executable, port, password, directory);
        command.addAll(EPHEMERAL);
        Path log = directory.resolve("server.log");
        String name = executable.getFileName() + " on port " + port;
        ChildProcess server = ChildProcess.start(name, command, directory, log, ChildProcess.StopSignal.TERM, Optional.empty());
        JedisClientConfig config = ValkeyProbe.config(Optional.empty(), Optional.of(password));
        try {
            ValkeyProbe.awaitPong(LOOPBACK, port, config, STARTUP, Optional.of(server));
        } catch (RuntimeException e) {
            throw server.stopAfterFailedStart(e);
        }
        ValkeyProbe.ServerInfo info = ValkeyProbe.serverInfo(LOOPBACK, port, config);
        String description = origin + " " + info.version() + ", child process on " + LOOPBACK + ":" + port
                + info.differenceFromTarget();
        return new StartedValkey(LOOPBACK, port, Optional.empty(), Optional.of(password),
                description, info.version(), true, server::stop);
    }
}
