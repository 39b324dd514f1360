package io.echomq.testkit.services;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL from the machine's own {@code initdb} and {@code postgres}: a throwaway cluster on a
 * free loopback port, password-protected (scram), without fsync (test data need not survive a
 * crash). PostgreSQL refuses to run as root, so as root the cluster is created and run as the
 * {@code postgres} OS account instead.
 */
public final class ChildProcessPostgres {

    static final String OS_ACCOUNT = "postgres";

    private static final String LOOPBACK = "127.0.0.1";
    private static final String SUPERUSER = "postgres";
    /** Unix socket paths are limited to about 107 bytes; longer directories get no socket (TCP is what we use). */
    private static final int MAX_SOCKET_DIRECTORY_LENGTH = 80;

    private ChildProcessPostgres() {
    }

    public record Binaries(Path initdb, Path postgres) {
    }

    /** {@code postgres} on PATH, else next to the real {@code initdb} (distributions often put only initdb on PATH). */
    public static Binaries findOnPath() throws SourceUnavailable {
        Path initdb = ExecutableOnPath.find("initdb")
                .orElseThrow(() -> new SourceUnavailable("initdb not found on PATH"));
        Optional<Path> postgres = ExecutableOnPath.find("postgres");
        if (postgres.isEmpty()) {
            try {
                Path beside = initdb.toRealPath().resolveSibling("postgres");
                if (Files.isExecutable(beside)) {
                    postgres = Optional.of(beside);
                }
            } catch (IOException ignored) {
                // Reported below as "not found".
            }
        }
        return new Binaries(initdb, postgres.orElseThrow(() -> new SourceUnavailable("postgres not found on PATH nor next to " + initdb)));
    }

    static StartedPostgres start(Binaries binaries, Optional<ChildProcessLauncher.OsUser> osUser) throws Exception {
        return FreePort.retrying(port -> startOn(port, binaries, osUser));
    }

    private static StartedPostgres startOn(int port, Binaries binaries, Optional<ChildProcessLauncher.OsUser> osUser) throws Exception {
        Path directory = ServiceDirectories.fresh("postgres-" + port);
        Path data = directory.resolve("data");
        String password = RandomSecret.hex(16);
        Path passwordFile = directory.resolve("password");
        Files.writeString(passwordFile, password);
        if (osUser.isPresent()) {
            handOver(directory, osUser.get());
        }

        ChildProcess initdb = ChildProcess.start("initdb", List.of(
                binaries.initdb().toString(),
                "-D", data.toString(),
                "-U", SUPERUSER,
                "-E", "UTF8",
                "--no-locale",
                "--auth=scram-sha-256",
                "--pwfile=" + passwordFile,
                "--no-sync"), directory, directory.resolve("initdb.log"), ChildProcess.StopSignal.TERM, osUser);
        int exit = initdb.awaitExit(Duration.ofSeconds(120));
        Files.deleteIfExists(passwordFile);
        if (exit != 0) {
            throw new IllegalStateException("initdb exited with " + exit + (osUser.isPresent()
                    ? " (running as OS user " + osUser.get().name() + ": every parent directory of " + directory + " must be searchable by it)"
                    : "") + "\n" + initdb.logTail());
        }

        List<String> command = new ArrayList<>(List.of(
                binaries.postgres().toString(),
                "-D", data.toString(),
                "-p", Integer.toString(port),
                "-c", "listen_addresses=" + LOOPBACK,
                "-k", directory.toString().length() <= MAX_SOCKET_DIRECTORY_LENGTH ? directory.toString() : "",
                "-c", "max_connections=200"));
        if (!EnvironmentSetting.postgresDurable()) {
            command.addAll(List.of("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"));
        }
        ChildProcess server = ChildProcess.start("postgres on port " + port, command, directory,
                directory.resolve("server.log"), ChildProcess.StopSignal.INT, osUser);
        String jdbcUrl = "jdbc:postgresql://" + LOOPBACK + ":" + port + "/postgres";
        try {
            PostgresProbe.awaitReady(jdbcUrl, SUPERUSER, password, Duration.ofSeconds(30), Optional.of(server));
        } catch (RuntimeException e) {
            throw server.stopAfterFailedStart(e);
        }
        String version = PostgresProbe.serverVersion(jdbcUrl, SUPERUSER, password);
        String description = "PostgreSQL " + version + " (initdb/postgres on PATH"
                + osUser.map(u -> ", run as OS user " + u.name()).orElse("") + "), child process on " + LOOPBACK + ":" + port;
        return new StartedPostgres(jdbcUrl, SUPERUSER, password, description, version, server::stop);
    }

    /** The account must own the directory it initializes and reads the password file from. */
    public static void handOver(Path directory, ChildProcessLauncher.OsUser osUser) throws IOException, InterruptedException {
        Process chown = new ProcessBuilder("chown", "-R", osUser.uid() + ":" + osUser.gid(), directory.toString())
                .redirectErrorStream(true).start();
        String out = new String(chown.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (chown.waitFor() != 0) {
            throw new IOException("chown of " + directory + " to " + osUser.name() + " failed: " + out);
        }
    }
}
