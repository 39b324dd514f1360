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
    void effectKeyIsUniquePerQueueAndJob(PostgresService postgres) {
        PostgresService.Database database = postgres.createDatabase("effect_key");
        Migrations.migrate(database.dataSource());
        Jdbi jdbi = Jdbi.create(database.dataSource());

        int inserted = jdbi.withHandle(h -> h.execute("""
                INSERT INTO echomq.effect (queue, job_id, attempt) VALUES ('q', 1, 1), ('q', 1, 2), ('other', 1, 1)
                ON CONFLICT DO NOTHING"""));

        assertThat(inserted).as("the second attempt of job q/1 is not recorded").isEqualTo(2);
    }
}
