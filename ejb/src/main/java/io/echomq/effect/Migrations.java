package io.echomq.effect;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import io.echomq.handler.HandlerSchema;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.ClassProvider;
import org.flywaydb.core.api.ResourceProvider;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.migration.JavaMigration;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.api.resource.LoadableResource;

/**
 * Brings the database to the schema this engine needs (the effect store), and a handler's own
 * tables to theirs ({@link HandlerSchema}: the demo ledger is one), in schema {@value #SCHEMA} so
 * they never collide with the application's tables or migrations; each set has a history of its
 * own.
 *
 * <p>The migrations are read from the list {@value #INDEX_FILE} beside them, never found by scanning:
 * a class loader cannot be asked for the files of a folder portably (Flyway's scanner finds
 * nothing in Open Liberty's application class loader), but every class loader returns a
 * resource by its name.
 *
 * <p>One scan is left that no setting turns off: Flyway's constructor looks for Java callbacks
 * in {@code db/callback}. On Open Liberty that logs an ERROR unless the folder exists, so the
 * echomq-db jar carries it with only Flyway's empty marker file {@code flyway.location}.
 */
public final class Migrations {

    /** The schema that holds EchoMQ's tables and its own migration history. */
    public static final String SCHEMA = "echomq";
    static final String FOLDER = "io/echomq/db/migration";
    /** In each folder: one migration file name a line, oldest first; {@code #} starts a comment. */
    static final String INDEX_FILE = "migrations.index";
    private static final String HISTORY = "echomq_schema_history";

    private Migrations() {
    }

    /** Applies the engine's pending migrations; a database already up to date is left as it is. */
    public static MigrateResult migrate(DataSource dataSource) {
        return configuration(dataSource).load().migrate();
    }

    /**
     * Applies the pending migrations of a handler's own tables, found through {@code loader}: the
     * handler class's own (a container's client proxy may have another).
     */
    public static MigrateResult migrate(DataSource dataSource, HandlerSchema handler, ClassLoader loader) {
        // The schema already holds the engine's tables: a handler's history starts below its own first version.
        return configuration(dataSource, loader, handler.migrationFolder(), handler.migrationHistoryTable())
                .baselineOnMigrate(true).baselineVersion("0").load().migrate();
    }

    static FluentConfiguration configuration(DataSource dataSource) {
        // The engine's class loader, not the thread's: on an application server the scripts sit
        // inside WEB-INF/lib jars that only the application's loader sees.
        return configuration(dataSource, Migrations.class.getClassLoader(), FOLDER, HISTORY)
                // V2 made the demo's tables until they moved to the demo's own migrations: a
                // database that applied it must still validate.
                .ignoreMigrationPatterns("versioned:missing");
    }

    private static FluentConfiguration configuration(DataSource dataSource, ClassLoader loader, String folder, String history) {
        List<LoadableResource> migrations = indexed(loader, folder);
        // Both providers given, so Flyway builds no scanner at all (with either missing it scans the locations).
        ClassProvider<JavaMigration> noJavaMigrations = List::of;
        return Flyway.configure(loader)
                .dataSource(dataSource)
                .schemas(SCHEMA)
                .createSchemas(true)
                .table(history)
                .resourceProvider(new IndexedResources(migrations))
                .javaMigrationClassProvider(noJavaMigrations);
    }

    /** The migrations the folder's index names, each checked to exist so a broken jar fails at once with its name. */
    static List<LoadableResource> indexed(ClassLoader loader, String folder) {
        String indexName = folder + "/" + INDEX_FILE;
        URL index = loader.getResource(indexName);
        if (index == null) {
            throw new IllegalStateException("no " + indexName + " on the class path of " + loader);
        }
        try (InputStream in = index.openStream();
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return lines.lines()
                    .map(String::strip)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .map(name -> (LoadableResource) new MigrationScript(loader, folder, name))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + index, e);
        }
    }

    /** Hands Flyway the listed scripts by name prefix and suffix, as its scanner would have found them. */
    private record IndexedResources(List<LoadableResource> scripts) implements ResourceProvider {

        @Override
        public LoadableResource getResource(String name) {
            return scripts.stream().filter(s -> s.getRelativePath().equals(name) || s.getAbsolutePath().equals(name))
                    .findFirst().orElse(null);
        }

        @Override
        public Collection<LoadableResource> getResources(String prefix, String[] suffixes) {
            return scripts.stream()
                    .filter(s -> s.getFilename().startsWith(prefix))
                    .filter(s -> Arrays.stream(suffixes).anyMatch(s.getFilename()::endsWith))
                    .toList();
        }
    }

    /** One SQL script read through the class loader by its full name. */
    private static final class MigrationScript extends LoadableResource {

        private final ClassLoader loader;
        private final String folder;
        private final String fileName;
        private final URL url;

        MigrationScript(ClassLoader loader, String folder, String fileName) {
            this.loader = loader;
            this.folder = folder;
            this.fileName = fileName;
            this.url = loader.getResource(folder + "/" + fileName);
            if (url == null) {
                throw new IllegalStateException(folder + "/" + INDEX_FILE + " names " + fileName + ", which is not on the class path of "
                        + loader);
            }
        }

        @Override
        public Reader read() {
            InputStream in = loader.getResourceAsStream(folder + "/" + fileName);
            if (in == null) {
                throw new IllegalStateException("cannot open " + url);
            }
            return new InputStreamReader(in, StandardCharsets.UTF_8);
        }

        @Override
        public String getAbsolutePath() {
            return folder + "/" + fileName;
        }

        @Override
        public String getAbsolutePathOnDisk() {
            return url.getPath();
        }

        @Override
        public String getFilename() {
            return fileName;
        }

        @Override
        public String getRelativePath() {
            return fileName;
        }
    }
}
