package io.echomq.reliability;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.Migrations;
import io.echomq.testkit.PostgresService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** What the scenarios share: their database, where child workers write their output, how long a worker JVM may take to start. */
final class Scenarios {

    static final Duration WORKER_START = Duration.ofSeconds(60);

    private Scenarios() {
    }

    /** A fresh database with the product's schema, for one scenario's effects and ledger. */
    static PostgresService.Database migratedDatabase(PostgresService postgres, String prefix) {
        PostgresService.Database database = postgres.createDatabase(prefix);
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        return database;
    }

    /** A fresh output file for one child worker under the module's {@code target/reliability/}. */
    static Path output(String name) {
        try {
            Path directory = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "reliability"));
            return Files.createTempFile(directory, name + "-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
