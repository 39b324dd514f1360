package io.echomq.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.echomq.effect.Migrations;
import io.echomq.runtime.PostgresPool;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.ValkeyService;
import java.net.URI;
import java.util.Optional;
import javax.sql.DataSource;
import redis.clients.jedis.RedisClient;

/**
 * The one Valkey and the one PostgreSQL database every measurement of a run uses: the test
 * harness's servers (given by URL, or started on loopback), with the schema migrated.
 */
final class Servers {

    final ValkeyService valkey;
    final PostgresService postgres;
    final PostgresService.Database database;
    /** Reads the server's CPU time around each run; one connection for the whole bench. */
    private final RedisClient cpuProbe;

    private Servers(ValkeyService valkey, PostgresService postgres, PostgresService.Database database) {
        this.valkey = valkey;
        this.postgres = postgres;
        this.database = database;
        this.cpuProbe = valkey.newClient();
    }

    static Servers start() {
        ValkeyService valkey = RealServices.valkey();
        PostgresService postgres = RealServices.postgres();
        PostgresService.Database database = postgres.createDatabase("bench");
        Migrations.migrate(database.dataSource());
        return new Servers(valkey, postgres, database);
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
        double seconds = 0;
        for (String line : cpuProbe.info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        return seconds;
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
