package io.echomq.testkit.services;

import java.time.Duration;
import java.util.Optional;

/**
 * A server somebody else runs, named by {@code ECHOMQ_TEST_JDBC_URL} (+ {@code _USER},
 * {@code _PASSWORD}). Used as-is: nothing is ever dropped there.
 */
final class EnvironmentPostgres {

    private EnvironmentPostgres() {
    }

    static StartedPostgres connect(String jdbcUrl, String user, String password) throws Exception {
        PostgresProbe.awaitReady(jdbcUrl, user, password, Duration.ofSeconds(10), Optional.empty());
        String version = PostgresProbe.serverVersion(jdbcUrl, user, password);
        String description = "PostgreSQL " + version + " from " + EnvironmentSetting.JDBC_URL + " at "
                + JdbcUrl.redact(jdbcUrl) + " (shared: nothing dropped)";
        return new StartedPostgres(jdbcUrl, user, password, description, version, () -> { });
    }
}
