package io.echomq.effect;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.WithRealServices;
import java.util.List;
import org.flywaydb.core.api.output.MigrateResult;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

@WithRealServices
class MigrationsTest {

    @Test
    void migratesAnEmptyDatabaseAndASecondRunChangesNothing(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("migrations");

        MigrateResult first = Migrations.migrate(database.dataSource());
        MigrateResult second = Migrations.migrate(database.dataSource());

        assertThat(first.migrationsExecuted).isGreaterThanOrEqualTo(2);
        assertThat(second.migrationsExecuted).isZero();
        assertThat(second.targetSchemaVersion).isNull();
        List<String> tables = Jdbi.create(database.dataSource()).withHandle(h -> h.createQuery(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'echomq' ORDER BY 1")
                .mapTo(String.class).list());
        assertThat(tables).contains("effect", "echomq_schema_history").doesNotContain("demo_account", "demo_ledger");
    }

    @Test
    void theDemosTablesComeOnlyWithTheDemoHandlerWithAHistoryOfTheirOwn(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("demo_tables");
        Migrations.migrate(database.dataSource());

        LedgerChargeHandler.createTables(database.dataSource());

        assertThat(tables(database)).contains("demo_account", "demo_ledger", "echomq_demo_schema_history");
    }

    @Test
    void aDatabaseWhoseEngineHistoryMadeTheDemoTablesStillMigratesAndTakesThemOver(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("demo_upgrade");
        Migrations.migrate(database.dataSource());
        Jdbi jdbi = Jdbi.create(database.dataSource());
        // As a database of the previous version holds it: the demo's tables, made by the engine's V2.
        jdbi.useHandle(h -> {
            h.execute("CREATE TABLE echomq.demo_account (id text PRIMARY KEY, balance_cents bigint NOT NULL DEFAULT 0)");
            h.execute("INSERT INTO echomq.demo_account VALUES ('a-1', 500)");
            h.execute("""
                    INSERT INTO echomq.echomq_schema_history
                        (installed_rank, version, description, type, script, checksum, installed_by, execution_time, success)
                    VALUES (100, '2', 'demo ledger', 'SQL', 'V2__demo_ledger.sql', 0, current_user, 0, true)""");
        });

        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());

        assertThat(tables(database)).contains("demo_account", "demo_ledger");
        long balance = jdbi.withHandle(h -> h.createQuery("SELECT balance_cents FROM echomq.demo_account WHERE id = 'a-1'")
                .mapTo(Long.class).one());
        assertThat(balance).as("the demo's data is kept").isEqualTo(500);
    }

    private static List<String> tables(PostgresService.Database database) {
        return Jdbi.create(database.dataSource()).withHandle(h -> h.createQuery(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'echomq' ORDER BY 1")
                .mapTo(String.class).list());
    }

    @Test
    void effectKeyIsUniquePerQueueJobAndCreationTime(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("effect_key");
        Migrations.migrate(database.dataSource());
        Jdbi jdbi = Jdbi.create(database.dataSource());

        int inserted = jdbi.withHandle(h -> h.execute("""
                INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt)
                VALUES ('q', 1, 100, 1), ('q', 1, 100, 2), ('other', 1, 100, 1), ('q', 1, 200, 1)
                ON CONFLICT DO NOTHING"""));

        assertThat(inserted).as("the second attempt of job q/1@100 is not recorded; job q/1@200 is another job").isEqualTo(3);
    }

    @Test
    void rowsOfTheFirstSchemaKeepTheirKeyAsRowsWithoutACreationTime(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("effect_upgrade");
        Migrations.configuration(database.dataSource()).target("1").load().migrate();
        Jdbi jdbi = Jdbi.create(database.dataSource());
        jdbi.useHandle(h -> h.execute("INSERT INTO echomq.effect (queue, job_id, attempt) VALUES ('q', 7, 2)"));

        Migrations.migrate(database.dataSource());

        String upgraded = jdbi.withHandle(h -> h.createQuery("SELECT job_created_ms || '/' || attempt FROM echomq.effect WHERE job_id = 7")
                .mapTo(String.class).one());
        boolean noDefault = jdbi.withHandle(h -> h.createQuery("SELECT column_default IS NULL FROM information_schema.columns "
                + "WHERE table_schema = 'echomq' AND table_name = 'effect' AND column_name = 'job_created_ms'")
                .mapTo(Boolean.class).one());
        assertThat(upgraded).as("creation time / attempt of the row written before").isEqualTo("0/2");
        assertThat(noDefault).as("new rows must name their job's creation time").isTrue();
    }
}
