package io.echomq.testkit.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.services.FreePort;
import io.echomq.testkit.services.ValkeyAddress;
import io.echomq.testkit.services.ValkeyProbe;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The dev launcher's servers: durable settings, data and passwords kept across restarts, the
 * settings file there only while they run, and servers given in the environment passed on as
 * they are. (bin/echomq-dev runs the same class as a program.)
 */
class DevServicesTest {

    private static final String VALKEY_URL = "ECHOMQ_VALKEY_URL";
    private static final String JDBC_URL = "ECHOMQ_JDBC_URL";
    private static final String JDBC_USER = "ECHOMQ_JDBC_USER";
    private static final String JDBC_PASSWORD = "ECHOMQ_JDBC_PASSWORD";

    @Test
    void startsDurableServersThatKeepTheirDataAndPasswordsAcrossRestarts(@TempDir Path folder) throws Exception {
        DevServices.Options options = DevServices.Options.parse(new String[] {
                "--dir", folder.toString(),
                "--valkey-port", Integer.toString(FreePort.onLoopback()),
                "--postgres-port", Integer.toString(FreePort.onLoopback())});

        Map<String, String> first;
        DevServices services = new DevServices(options, Map.of());
        try {
            services.start();
            first = settings(options.envFile);

            assertThat(first).containsOnlyKeys(VALKEY_URL, JDBC_URL, JDBC_USER, JDBC_PASSWORD);
            assertThat(first.get(JDBC_URL)).isEqualTo("jdbc:postgresql://127.0.0.1:" + options.postgresPort + "/echomq");
            assertThat(Files.getPosixFilePermissions(options.envFile))
                    .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
            try (Jedis jedis = valkey(first)) {
                assertThat(jedis.configGet("appendonly")).containsEntry("appendonly", "yes");
                assertThat(jedis.configGet("appendfsync")).containsEntry("appendfsync", "always");
                assertThat(jedis.configGet("maxmemory-policy")).containsEntry("maxmemory-policy", "noeviction");
                jedis.set("dev-services-test", "kept");
            }
            try (Connection connection = postgres(first); Statement statement = connection.createStatement()) {
                assertThat(single(statement, "SHOW synchronous_commit")).isEqualTo("on");
                assertThat(single(statement, "SHOW fsync")).isEqualTo("on");
                statement.execute("CREATE TABLE kept (note text)");
                statement.execute("INSERT INTO kept VALUES ('kept')");
            }
        } finally {
            services.stopAll();
        }
        assertThat(options.envFile).doesNotExist();
        assertThat(DevServices.portInUse(options.valkeyPort)).as("Valkey stopped").isFalse();
        assertThat(DevServices.portInUse(options.postgresPort)).as("PostgreSQL stopped").isFalse();

        DevServices again = new DevServices(options, Map.of());
        try {
            again.start();
            Map<String, String> second = settings(options.envFile);

            assertThat(second).as("same URLs and passwords").isEqualTo(first);
            try (Jedis jedis = valkey(second)) {
                assertThat(jedis.get("dev-services-test")).isEqualTo("kept");
            }
            try (Connection connection = postgres(second); Statement statement = connection.createStatement()) {
                assertThat(single(statement, "SELECT note FROM kept")).isEqualTo("kept");
            }
        } finally {
            again.stopAll();
        }
    }

    @Test
    void passesServersGivenInTheEnvironmentOnAsTheyAre(@TempDir Path folder) throws Exception {
        ValkeyService valkey = RealServices.valkey();
        PostgresService postgres = RealServices.postgres();
        Map<String, String> given = Map.of(
                VALKEY_URL, valkey.url(),
                JDBC_URL, postgres.jdbcUrl(),
                JDBC_USER, postgres.user(),
                JDBC_PASSWORD, postgres.password());
        DevServices.Options options = DevServices.Options.parse(new String[] {"--dir", folder.toString()});

        DevServices services = new DevServices(options, given);
        try {
            services.start();

            assertThat(settings(options.envFile)).isEqualTo(given);
            assertThat(folder.resolve("valkey")).as("nothing started").doesNotExist();
            assertThat(folder.resolve("postgres")).as("nothing started").doesNotExist();
        } finally {
            services.stopAll();
        }
        try (Jedis jedis = valkey(given)) {
            assertThat(jedis.ping()).as("a given server is never stopped").isEqualTo("PONG");
        }
    }

    @Test
    void refusesAPortHeldByAServerOfAnotherFolder(@TempDir Path folder) throws Exception {
        ValkeyService someoneElses = RealServices.valkey();
        DevServices.Options options = DevServices.Options.parse(new String[] {
                "--dir", folder.toString(), "--valkey-port", Integer.toString(someoneElses.port())});

        DevServices services = new DevServices(options, Map.of());
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(services::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + someoneElses.port() + " is in use");
        } finally {
            services.stopAll();
        }
        assertThat(options.envFile).doesNotExist();
    }

    private static Map<String, String> settings(Path envFile) throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : Files.readAllLines(envFile)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                settings.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        return settings;
    }

    private static Jedis valkey(Map<String, String> settings) {
        ValkeyAddress address = ValkeyAddress.parse(settings.get(VALKEY_URL));
        return new Jedis(new HostAndPort(address.host(), address.port()), ValkeyProbe.config(address.user(), address.password()));
    }

    private static Connection postgres(Map<String, String> settings) throws SQLException {
        return DriverManager.getConnection(settings.get(JDBC_URL), settings.get(JDBC_USER), settings.get(JDBC_PASSWORD));
    }

    private static String single(Statement statement, String sql) throws SQLException {
        try (ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getString(1);
        }
    }
}
