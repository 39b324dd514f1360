package io.echomq.effect;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(tables).contains("effect", "demo_account", "demo_ledger", "echomq_schema_history");
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
        Migrations.configuration(database.dataSource()).target("2").load().migrate();
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
