package io.echomq.effect;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings the database to the schema this engine needs: the effect store and the demo ledger,
 * in their own schema so they never collide with the application's tables or migrations.
 */
public final class Migrations {

    /** The schema that holds EchoMQ's tables and its own migration history. */
    public static final String SCHEMA = "echomq";
    static final String LOCATION = "classpath:io/echomq/db/migration";

    private Migrations() {
    }

    /** Applies pending migrations; a database already up to date is left as it is. */
    public static MigrateResult migrate(DataSource dataSource) {
        return configuration(dataSource).load().migrate();
    }

    static FluentConfiguration configuration(DataSource dataSource) {
        // The engine's class loader, not the thread's: on an application server the scripts sit
        // inside WEB-INF/lib jars that only the application's loader sees.
        return Flyway.configure(Migrations.class.getClassLoader())
                .dataSource(dataSource)
                .schemas(SCHEMA)
                .createSchemas(true)
                .table("echomq_schema_history")
                .locations(LOCATION)
                .failOnMissingLocations(true);
    }
}
