package io.echomq.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

/**
 * An application server unpacked from its Maven Central zip (the web module's build puts them
 * under {@code target/servers/} and names the folder in a system property), and the copies each
 * test server makes of its pieces.
 */
final class ServerInstall {

    private ServerInstall() {
    }

    /** The folder the system property names; a missing one is an error that says how to get it, never a skip. */
    static Path home(String property, String marker) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + property + " names no server folder (the web module's"
                    + " failsafe configuration sets it; run `mvn -pl web -am verify`, which unpacks the server first)");
        }
        Path home = Path.of(value).toAbsolutePath().normalize();
        if (!Files.exists(home.resolve(marker))) {
            throw new IllegalStateException("no " + marker + " in " + home + " (" + property + "): the server is not unpacked there");
        }
        return home;
    }

    static void copy(Path file, Path target) {
        try {
            Files.createDirectories(target.getParent());
            Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + file + " to " + target, e);
        }
    }

    static void copyTree(Path from, Path to) {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
        }
    }

    static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static String javaHome() {
        return System.getProperty("java.home");
    }
}
