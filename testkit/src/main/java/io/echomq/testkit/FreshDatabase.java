package io.echomq.testkit;

import io.echomq.testkit.services.JdbcUrl;
import io.echomq.testkit.services.RandomSecret;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;

/** {@code CREATE DATABASE prefix_<random>}: isolation by name, which works on shared servers too. */
final class FreshDatabase {

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,39}");

    private FreshDatabase() {
    }

    static PostgresService.Database create(PostgresService server, String prefix) {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("database prefix must match " + PREFIX + " (so it needs no quoting), got: " + prefix);
        }
        String name = prefix + "_" + RandomSecret.hex(6);
        try (Connection connection = server.dataSource().getConnection();
             Statement statement = connection.createStatement()) {
            // template0 cannot be connected to, so concurrent creations never trip over "source database is being accessed".
            statement.execute("CREATE DATABASE " + name + " TEMPLATE template0");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on " + server.description()
                    + " (the user needs CREATEDB): " + e.getMessage(), e);
        }
        return new PostgresService.Database(name, JdbcUrl.withDatabase(server.jdbcUrl(), name), server.user(), server.password());
    }
}
