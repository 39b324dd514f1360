package io.echomq.testkit;

import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** Data sources from URL and credentials; empty credentials are left to the URL or the server's trust rules. */
final class PostgresDataSources {

    private PostgresDataSources() {
    }

    static DataSource simple(String jdbcUrl, String user, String password) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl);
        if (user != null && !user.isEmpty()) {
            dataSource.setUser(user);
        }
        if (password != null && !password.isEmpty()) {
            dataSource.setPassword(password);
        }
        return dataSource;
    }
}
