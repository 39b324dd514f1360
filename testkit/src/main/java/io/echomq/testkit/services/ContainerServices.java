package io.echomq.testkit.services;

import java.time.Duration;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The only class that touches Testcontainers, so that machines without Docker never load it
 * (see {@link DockerEngine}). Plain {@link GenericContainer}s keep the dependency to the core
 * artifact; Testcontainers' reaper removes them even if the JVM is killed.
 */
public final class ContainerServices {

    public static final String VALKEY_IMAGE = "valkey/valkey:8.1";
    public static final String POSTGRES_IMAGE = "postgres:17";

    private static final int VALKEY_PORT = 6379;
    private static final int POSTGRES_PORT = 5432;
    private static final Duration STARTUP = Duration.ofMinutes(3);

    private ContainerServices() {
    }

    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    static StartedValkey startValkey() {
        String password = RandomSecret.hex(16);
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(VALKEY_IMAGE))
                .withExposedPorts(VALKEY_PORT)
                .withCommand("valkey-server",
                        "--requirepass", password,
                        "--save", "",
                        "--appendonly", "no",
                        "--maxmemory-policy", "noeviction")
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1))
                .withStartupTimeout(STARTUP);
        container.start();
        try {
            String host = container.getHost();
            int port = container.getMappedPort(VALKEY_PORT);
            var config = ValkeyProbe.config(Optional.empty(), Optional.of(password));
            ValkeyProbe.awaitPong(host, port, config, Duration.ofSeconds(10), Optional.empty());
            ValkeyProbe.ServerInfo info = ValkeyProbe.serverInfo(host, port, config);
            String description = info.serverName() + " " + info.version() + ", container " + VALKEY_IMAGE
                    + " on " + host + ":" + port + info.differenceFromTarget();
            return new StartedValkey(host, port, Optional.empty(), Optional.of(password), description, info.version(),
                    false, container::stop);
        } catch (RuntimeException e) {
            container.stop();
            throw e;
        }
    }

    static StartedPostgres startPostgres() throws Exception {
        String user = "postgres";
        String password = RandomSecret.hex(16);
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(POSTGRES_IMAGE))
                .withExposedPorts(POSTGRES_PORT)
                .withEnv("POSTGRES_USER", user)
                .withEnv("POSTGRES_PASSWORD", password)
                .withEnv("POSTGRES_DB", "postgres")
                .withCommand("postgres", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
                // The image's entrypoint starts the server twice (once to initialize): wait for the second.
                .waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*\\s", 2))
                .withStartupTimeout(STARTUP);
        container.start();
        try {
            String jdbcUrl = "jdbc:postgresql://" + container.getHost() + ":" + container.getMappedPort(POSTGRES_PORT) + "/postgres";
            PostgresProbe.awaitReady(jdbcUrl, user, password, Duration.ofSeconds(30), Optional.empty());
            String version = PostgresProbe.serverVersion(jdbcUrl, user, password);
            String description = "PostgreSQL " + version + ", container " + POSTGRES_IMAGE + " at " + jdbcUrl;
            return new StartedPostgres(jdbcUrl, user, password, description, version, container::stop);
        } catch (Exception e) {
            container.stop();
            throw e;
        }
    }
}
