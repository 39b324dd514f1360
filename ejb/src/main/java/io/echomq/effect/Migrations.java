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
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.ClassProvider;
import org.flywaydb.core.api.ResourceProvider;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.migration.JavaMigration;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.api.resource.LoadableResource;

/**
 * Brings the database to the schema this engine needs: the effect store and the demo ledger,
 * in their own schema so they never collide with the application's tables or migrations.
 *
 * <p>The migrations are read from the list {@value #INDEX} beside them, never found by scanning:
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
    /** One migration file name a line, oldest first; {@code #} starts a comment (echomq-db). */
    static final String INDEX = FOLDER + "/migrations.index";

    private Migrations() {
    }

    /** Applies pending migrations; a database already up to date is left as it is. */
    public static MigrateResult migrate(DataSource dataSource) {
        return configuration(dataSource).load().migrate();
    }

    static FluentConfiguration configuration(DataSource dataSource) {
        // The engine's class loader, not the thread's: on an application server the scripts sit
        // inside WEB-INF/lib jars that only the application's loader sees.
        ClassLoader loader = Migrations.class.getClassLoader();
        List<LoadableResource> migrations = indexed(loader);
        // Both providers given, so Flyway builds no scanner at all (with either missing it scans the locations).
        ClassProvider<JavaMigration> noJavaMigrations = List::of;
        return Flyway.configure(loader)
                .dataSource(dataSource)
                .schemas(SCHEMA)
                .createSchemas(true)
                .table("echomq_schema_history")
                .resourceProvider(new IndexedResources(migrations))
                .javaMigrationClassProvider(noJavaMigrations);
    }

    /** The migrations the index names, each checked to exist so a broken jar fails at once with its name. */
    static List<LoadableResource> indexed(ClassLoader loader) {
        URL index = loader.getResource(INDEX);
        if (index == null) {
            throw new IllegalStateException("no " + INDEX + " on the class path of " + loader + " (the echomq-db jar is missing)");
        }
        try (InputStream in = index.openStream();
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return lines.lines()
                    .map(String::strip)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .map(name -> (LoadableResource) new MigrationScript(loader, name))
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
        private final String fileName;
        private final URL url;

        MigrationScript(ClassLoader loader, String fileName) {
            this.loader = loader;
            this.fileName = fileName;
            this.url = loader.getResource(FOLDER + "/" + fileName);
            if (url == null) {
                throw new IllegalStateException(INDEX + " names " + fileName + ", which is not on the class path of " + loader);
            }
        }

        @Override
        public Reader read() {
            InputStream in = loader.getResourceAsStream(FOLDER + "/" + fileName);
            if (in == null) {
                throw new IllegalStateException("cannot open " + url);
            }
            return new InputStreamReader(in, StandardCharsets.UTF_8);
        }

        @Override
        public String getAbsolutePath() {
            return FOLDER + "/" + fileName;
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
