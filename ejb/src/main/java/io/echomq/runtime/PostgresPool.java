package io.echomq.runtime;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Optional;
import org.postgresql.ds.PGSimpleDataSource;

/** The engine's one way to open its PostgreSQL pool, in the WAR and in the standalone worker. */
public final class PostgresPool {

    private PostgresPool() {
    }

    public static HikariDataSource open(String name, String jdbcUrl, Optional<String> user, Optional<String> password, int size) {
        // The driver's own DataSource, not DriverManager: on an application server the driver sits
        // in the WAR, where DriverManager (loaded by the server) cannot see it.
        PGSimpleDataSource driver = new PGSimpleDataSource();
        driver.setURL(jdbcUrl);
        user.ifPresent(driver::setUser);
        password.ifPresent(driver::setPassword);
        HikariConfig pool = new HikariConfig();
        pool.setPoolName(name);
        pool.setDataSource(driver);
        pool.setMaximumPoolSize(size);
        // The effect store relies on READ COMMITTED (a second attempt waits on the key, then
        // skips) and does not ask for it per transaction; the pool sets it on every connection
        // and restores it if a handler changed it.
        pool.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        // Fail fast with the driver's own message when the database is unreachable.
        pool.setInitializationFailTimeout(10_000);
        return new HikariDataSource(pool);
    }
}
