package io.echomq.testkit.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.WithRealServices;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@WithRealServices
class PostgresServiceTest {

    @Test
    void postgresRunsQueriesAndReportsItsVersion(PostgresService postgres) throws SQLException {
        assertThat(postgres.serverVersion()).matches("\\d+(\\.\\d+)?.*");
        assertThat(postgres.description()).isNotBlank();
        assertThat(postgres.jdbcUrl()).startsWith("jdbc:postgresql://");

        assertThat(queryString(postgres.dataSource(), "SELECT version()"))
                .startsWith("PostgreSQL " + postgres.serverVersion());
    }

    @Test
    void createDatabaseGivesAnEmptyIsolatedDatabase(PostgresService postgres) throws SQLException {
        PostgresService.Database first = postgres.createDatabase("testkit");
        PostgresService.Database second = postgres.createDatabase("testkit");

        assertThat(first.name()).startsWith("testkit_").isNotEqualTo(second.name());
        assertThat(first.jdbcUrl()).isNotEqualTo(second.jdbcUrl()).contains("/" + first.name());
        assertThat(queryString(first.dataSource(), "SELECT current_database()")).isEqualTo(first.name());
        assertThat(countUserTables(first.dataSource())).isZero();

        execute(first.dataSource(), "CREATE TABLE only_in_first (id int)");

        assertThat(countUserTables(first.dataSource())).isEqualTo(1);
        assertThat(countUserTables(second.dataSource())).isZero();
    }

    @Test
    void createDatabaseRejectsPrefixesThatWouldNeedQuoting(PostgresService postgres) {
        assertThatThrownBy(() -> postgres.createDatabase("Robert'); DROP"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theJdbcUrlFromTheEnvironmentIsUsedAsIs(PostgresService postgres) throws Exception {
        StartedPostgres fromUrl = EnvironmentPostgres.connect(postgres.jdbcUrl(), postgres.user(), postgres.password());

        assertThat(fromUrl.serverVersion()).isEqualTo(postgres.serverVersion());
        assertThat(fromUrl.description()).contains(EnvironmentSetting.JDBC_URL);
        assertThat(queryString(fromUrl.dataSource(), "SELECT 1")).isEqualTo("1");
    }

    private static String queryString(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            assertThat(result.next()).isTrue();
            return result.getString(1);
        }
    }

    private static int countUserTables(DataSource dataSource) throws SQLException {
        return Integer.parseInt(queryString(dataSource,
                "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"));
    }

    private static void execute(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
