package io.echomq.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.Migrations;
import io.echomq.runtime.PostgresPool;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.ValkeyService;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import redis.clients.jedis.RedisClient;

/**
 * The one Valkey and the one PostgreSQL database every measurement of a run uses: the test
 * harness's servers (given by URL, or started on loopback), with the schema migrated. The
 * PostgreSQL must be durable (fsync and full_page_writes on): an exactly-once figure measured
 * without them says nothing of production, where every effect's commit waits for the disk.
 */
final class Servers {

    final ValkeyService valkey;
    final PostgresService postgres;
    final PostgresService.Database database;
    /** The server's durability settings as it reports them, for the report's header. */
    final String durability;
    /** Reads the server's CPU time around each run; one connection for the whole bench. */
    private final RedisClient cpuProbe;

    private Servers(ValkeyService valkey, PostgresService postgres, PostgresService.Database database, String durability) {
        this.valkey = valkey;
        this.postgres = postgres;
        this.database = database;
        this.durability = durability;
        this.cpuProbe = valkey.newClient();
    }

    /** The servers, however the bench was launched: a PostgreSQL the harness starts for it is a durable one. */
    static Servers start() {
        ValkeyService valkey = RealServices.valkey();
        PostgresService postgres = RealServices.durablePostgres();
        PostgresService.Database database = postgres.createDatabase("bench");
        String durability = requireDurable(database.dataSource());
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        return new Servers(valkey, postgres, database, durability);
    }

    /**
     * The server's fsync, full_page_writes and synchronous_commit; refuses a server without the
     * first two. synchronous_commit may be off server-wide: every contestant's transaction turns
     * it on for itself, as the effect store does.
     */
    private static String requireDurable(DataSource postgres) {
        try (Connection connection = postgres.getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT current_setting('fsync'), current_setting('full_page_writes'), current_setting('synchronous_commit')")) {
            row.next();
            String fsync = row.getString(1);
            String fullPageWrites = row.getString(2);
            String settings = "fsync " + fsync + ", full_page_writes " + fullPageWrites + ", synchronous_commit " + row.getString(3);
            if (!"on".equals(fsync) || !"on".equals(fullPageWrites)) {
                throw new IllegalStateException("the PostgreSQL server has " + settings + "; the bench measures exactly-once effects"
                        + " and needs fsync and full_page_writes on: point ECHOMQ_TEST_JDBC_URL at a durable server, or give none"
                        + " and the bench starts one");
            }
            return settings + " (each contestant's transaction sets synchronous_commit on)";
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the PostgreSQL server's settings: " + e.getMessage(), e);
        }
    }

    RedisClient newRedis() {
        return valkey.newClient();
    }

    /** A run whose Measurement is returned, by a contestant that uses Valkey. */
    @FunctionalInterface
    interface ValkeyRun<E extends Exception> {
        Measurement run() throws E;
    }

    /**
     * {@code run}'s Measurement with the CPU time the Valkey server used meanwhile (user and
     * system, all its threads, from {@code INFO cpu}): per job it shows what a contestant costs
     * the server, which throughput on a shared machine hides.
     */
    <E extends Exception> Measurement withValkeyCpu(ValkeyRun<E> run) throws E {
        double before = valkeyCpuNow();
        Measurement measured = run.run();
        return measured.withValkeyCpu(valkeyCpuNow() - before);
    }

    private double valkeyCpuNow() {
        Map<String, String> cpu = ValkeyInfo.fields(cpuProbe.info("cpu"));
        return Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
    }

    DataSource simpleDataSource() {
        return database.dataSource();
    }

    /** The engine's own pool factory, sized for {@code connections}. */
    HikariDataSource pool(String name, int connections) {
        return PostgresPool.open(name, database.jdbcUrl(), Optional.ofNullable(database.user()),
                Optional.ofNullable(database.password()), connections);
    }

    /** host, port and database name of the JDBC URL, for pgbench and node's pg. */
    URI jdbcAddress() {
        return URI.create(database.jdbcUrl().substring("jdbc:".length()));
    }

    String databaseName() {
        String path = jdbcAddress().getPath();
        return path.startsWith("/") ? path.substring(1) : path;
    }

    /** postgres://user:password@host:port/db for node's pg. */
    String postgresUrl() {
        URI at = jdbcAddress();
        return "postgres://" + database.user() + ":" + Optional.ofNullable(database.password()).orElse("") + "@"
                + at.getHost() + ":" + at.getPort() + "/" + databaseName();
    }
}
