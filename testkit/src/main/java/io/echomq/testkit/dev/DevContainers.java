package io.echomq.testkit.dev;

import io.echomq.testkit.services.ChildProcessLauncher;
import io.echomq.testkit.services.ChildProcessValkey;
import io.echomq.testkit.services.ContainerServices;
import io.echomq.testkit.services.CurrentUser;
import io.echomq.testkit.services.PostgresProbe;
import io.echomq.testkit.services.ValkeyProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;
import redis.clients.jedis.JedisClientConfig;

/**
 * The dev launcher's servers as containers, for machines with a Docker engine: the same images as
 * the tests ({@link ContainerServices}), but with the data bind-mounted from the dev folder and
 * the fixed ports published on 127.0.0.1. The containers run as the current user (root inside the
 * image otherwise), so the files they write stay the developer's. Testcontainers' reaper removes
 * the containers, never the data, when the launcher's JVM ends.
 *
 * <p>Only this class (and {@link ContainerServices}) touches Testcontainers, so machines without
 * Docker never load it.
 */
final class DevContainers {

    /** The major version of {@link ContainerServices#POSTGRES_IMAGE}: only a cluster of that version can be opened. */
    static final int POSTGRES_MAJOR_VERSION = 17;

    private static final Duration STARTUP = Duration.ofMinutes(3);
    private static final int VALKEY_PORT = 6379;
    private static final int POSTGRES_PORT = 5432;

    private DevContainers() {
    }

    static DevServices.Store valkey(Path directory, int port, JedisClientConfig client, Map<String, String> env) {
        List<String> command = new ArrayList<>(List.of("valkey-server", "/data/valkey.conf", "--dir", "/data"));
        command.addAll(ChildProcessValkey.DURABLE);
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(ContainerServices.VALKEY_IMAGE))
                .withFileSystemBind(directory.toString(), "/data", BindMode.READ_WRITE)
                .withCommand(command.toArray(String[]::new))
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1))
                .withStartupTimeout(STARTUP);
        container.setPortBindings(List.of(DevServices.LOOPBACK + ":" + port + ":" + VALKEY_PORT));
        runAsCurrentUser(container);
        container.start();
        try {
            ValkeyProbe.awaitPong(DevServices.LOOPBACK, port, client, Duration.ofSeconds(30), Optional.empty());
            ValkeyProbe.ServerInfo info = ValkeyProbe.serverInfo(DevServices.LOOPBACK, port, client);
            String description = info.serverName() + " " + info.version() + ", container " + ContainerServices.VALKEY_IMAGE
                    + " on " + DevServices.LOOPBACK + ":" + port + ", AOF fsync always, noeviction; data in " + directory;
            return new DevServices.Store("Valkey", description, env, Optional.empty(), container::stop);
        } catch (RuntimeException e) {
            container.stop();
            throw e;
        }
    }

    static DevServices.Store postgres(Path directory, Path data, int port, String password, String adminUrl,
                                      Map<String, String> env) throws Exception {
        Files.createDirectories(data);
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(ContainerServices.POSTGRES_IMAGE))
                .withFileSystemBind(data.toString(), "/var/lib/postgresql/data", BindMode.READ_WRITE)
                .withEnv("POSTGRES_USER", DevPostgres.USER)
                .withEnv("POSTGRES_PASSWORD", password)
                .withEnv("POSTGRES_DB", DevPostgres.DATABASE)
                .withEnv("POSTGRES_INITDB_ARGS", "--encoding=UTF8 --locale=C --auth=scram-sha-256")
                // The entrypoint's first-run server listens on no TCP port, so the port means "initialized and up".
                .waitingFor(Wait.forListeningPort())
                .withStartupTimeout(STARTUP);
        container.setPortBindings(List.of(DevServices.LOOPBACK + ":" + port + ":" + POSTGRES_PORT));
        runAsCurrentUser(container);
        container.start();
        try {
            PostgresProbe.awaitReady(adminUrl, DevPostgres.USER, password, Duration.ofSeconds(60), Optional.empty());
            String version = PostgresProbe.serverVersion(adminUrl, DevPostgres.USER, password);
            String description = "PostgreSQL " + version + ", container " + ContainerServices.POSTGRES_IMAGE + " on "
                    + DevServices.LOOPBACK + ":" + port + ", database " + DevPostgres.DATABASE + "; data in " + directory;
            return new DevServices.Store("PostgreSQL", description, env, Optional.empty(), container::stop);
        } catch (Exception e) {
            container.stop();
            throw e;
        }
    }

    /** As root the images' entrypoints switch to their own accounts themselves; otherwise run as us. */
    private static void runAsCurrentUser(GenericContainer<?> container) {
        if (CurrentUser.isRoot()) {
            return;
        }
        ChildProcessLauncher.OsUser.lookup(System.getProperty("user.name")).ifPresent(user ->
                container.withCreateContainerCmdModifier(cmd -> cmd.withUser(user.uid() + ":" + user.gid())));
    }
}
