package io.echomq.testkit.services;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;

/** Asks a server whether it accepts connections and which version it is. */
public final class PostgresProbe {

    private PostgresProbe() {
    }

    /**
     * Polls until a login works. Stops early when {@code server} (if we started it) has died or
     * the server rejects the credentials (SQLSTATE class 28): waiting cannot fix either.
     */
    public static void awaitReady(String jdbcUrl, String user, String password, Duration timeout, Optional<ChildProcess> server) {
        long deadline = System.nanoTime() + timeout.toNanos();
        SQLException last = null;
        while (true) {
            try {
                connect(jdbcUrl, user, password).close();
                return;
            } catch (SQLException e) {
                last = e;
                if (e.getSQLState() != null && e.getSQLState().startsWith("28")) {
                    throw new IllegalStateException(JdbcUrl.redact(jdbcUrl) + " rejected user '" + user + "': " + e.getMessage(), e);
                }
            }
            if (server.isPresent() && !server.get().isAlive()) {
                throw new IllegalStateException(server.get() + " exited before accepting connections\n" + server.get().logTail(), last);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no connection to " + JdbcUrl.redact(jdbcUrl) + " within " + timeout + ": "
                        + last.getMessage() + server.map(s -> "\n" + s.logTail()).orElse(""), last);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for PostgreSQL", e);
            }
        }
    }

    /** The leading version number of {@code server_version}; distributions append their build after a space. */
    public static String serverVersion(String jdbcUrl, String user, String password) throws SQLException {
        try (Connection connection = connect(jdbcUrl, user, password);
             Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SHOW server_version")) {
            result.next();
            return result.getString(1).trim().split("\\s+")[0];
        }
    }

    /** {@code SHOW name}: a server setting (some, such as {@code data_directory}, only for superusers). */
    public static String setting(String jdbcUrl, String user, String password, String name) throws SQLException {
        if (!name.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a setting name: " + name);
        }
        try (Connection connection = connect(jdbcUrl, user, password);
             Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SHOW " + name)) {
            result.next();
            return result.getString(1);
        }
    }

    static void execute(String jdbcUrl, String user, String password, String sql) throws SQLException {
        try (Connection connection = connect(jdbcUrl, user, password);
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static Connection connect(String jdbcUrl, String user, String password) throws SQLException {
        Properties properties = new Properties();
        if (user != null && !user.isEmpty()) {
            properties.setProperty("user", user);
        }
        if (password != null && !password.isEmpty()) {
            properties.setProperty("password", password);
        }
        properties.setProperty("connectTimeout", "2");
        properties.setProperty("socketTimeout", "30");
        return DriverManager.getConnection(jdbcUrl, properties);
    }
}
