package io.echomq.testkit.faults;

import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.services.ChildProcess;
import io.echomq.testkit.services.ChildProcessValkey;
import io.echomq.testkit.services.FreePort;
import io.echomq.testkit.services.RandomSecret;
import io.echomq.testkit.services.ServiceDirectories;
import io.echomq.testkit.services.ServiceDiscovery;
import io.echomq.testkit.services.SourceUnavailable;
import io.echomq.testkit.services.ValkeyProbe;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.JedisClientConfig;

/**
 * A Valkey of one test's own that the test may crash: {@link #killHard()} sends SIGKILL, and
 * {@link #restart()} starts the server again on the same port, password and data directory, so
 * it replays its append-only file. Durable by default ({@code appendonly yes}, {@code appendfsync
 * always}, {@code noeviction}); extra settings given to {@link #start} override those.
 *
 * <pre>{@code
 * try (CrashableValkey valkey = CrashableValkey.start("--appendfsync", "everysec")) {
 *     valkey.killHard();
 *     valkey.restart();
 * }
 * }</pre>
 */
public final class CrashableValkey implements ValkeyService, AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";
    /** Replaying a large append-only file takes a while; the server answers LOADING until done. */
    private static final Duration STARTUP = Duration.ofSeconds(60);

    private final Path binary;
    private final int port;
    private final Path directory;
    private final String password = RandomSecret.hex(16);
    private final List<String> settings;
    private ChildProcess server;
    private String version = "";

    private CrashableValkey(Path binary, int port, List<String> settings) {
        this.binary = binary;
        this.port = port;
        this.directory = ServiceDirectories.fresh("crashable-valkey-" + port);
        this.settings = List.copyOf(settings);
    }

    /** Starts a server from {@code valkey-server} or {@code redis-server} on PATH, with extra command-line settings. */
    public static CrashableValkey start(String... settings) throws Exception {
        Path binary;
        try {
            binary = ServiceDiscovery.onPath("valkey-server");
        } catch (SourceUnavailable noValkey) {
            binary = ServiceDiscovery.onPath("redis-server");
        }
        Path found = binary;
        return FreePort.retrying(port -> {
            CrashableValkey valkey = new CrashableValkey(found, port, List.of(settings));
            valkey.launch();
            return valkey;
        });
    }

    /** SIGKILL: no shutdown, no final fsync. Returns once the process is gone. */
    public synchronized void killHard() throws InterruptedException {
        server.kill();
    }

    /** Starts the server again on its port and data (replaying the append-only file) and waits until it answers. */
    public synchronized void restart() throws Exception {
        if (server.isAlive()) {
            server.stop();
        }
        launch();
    }

    public synchronized long pid() {
        return server.pid();
    }

    private synchronized void launch() throws Exception {
        List<String> command = new ArrayList<>(ChildProcessValkey.command(binary, port, password, directory));
        command.addAll(ChildProcessValkey.DURABLE);
        command.addAll(settings);
        server = ChildProcess.start(binary.getFileName() + " on port " + port, command, directory,
                directory.resolve("server.log"), ChildProcess.StopSignal.TERM, Optional.empty());
        JedisClientConfig config = ValkeyProbe.config(Optional.empty(), Optional.of(password));
        try {
            ValkeyProbe.awaitPong(LOOPBACK, port, config, STARTUP, Optional.of(server));
        } catch (RuntimeException e) {
            throw server.stopAfterFailedStart(e);
        }
        version = ValkeyProbe.serverInfo(LOOPBACK, port, config).version();
    }

    @Override
    public String host() {
        return LOOPBACK;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public Optional<String> password() {
        return Optional.of(password);
    }

    @Override
    public String description() {
        return binary.getFileName() + " " + version + ", crashable child process on " + LOOPBACK + ":" + port
                + " with " + String.join(" ", settings) + "; data in " + directory;
    }

    @Override
    public String serverVersion() {
        return version;
    }

    @Override
    public boolean isChildProcess() {
        return true;
    }

    @Override
    public synchronized void close() {
        server.stop();
    }
}
