package io.echomq.testkit.services;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where servers we start keep their data and logs: {@code ${java.io.tmpdir}/echomq-services/<name>}.
 * Surefire points {@code java.io.tmpdir} at the module's {@code target/}, so {@code mvn clean}
 * removes everything and nothing lands in a /tmp shared with other builds.
 */
public final class ServiceDirectories {

    /** Written into every service directory so a later run can tell whether its owner is still alive. */
    static final String OWNER_FILE = "owner.pid";

    private static boolean leftoversReaped;

    private ServiceDirectories() {
    }

    static Path base() {
        return Path.of(System.getProperty("java.io.tmpdir"), "echomq-services").toAbsolutePath().normalize();
    }

    /** An empty directory owned by this JVM; servers an aborted earlier run left behind are stopped first. */
    public static synchronized Path fresh(String name) {
        Path base = base();
        if (!leftoversReaped) {
            leftoversReaped = true;
            LeftoverServers.reap(base);
        }
        Path directory = base.resolve(name);
        try {
            deleteRecursively(directory);
            Files.createDirectories(directory);
            Files.writeString(directory.resolve(OWNER_FILE), Long.toString(ProcessHandle.current().pid()));
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + directory, e);
        }
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        }
    }
}
