package io.echomq.web;

import java.nio.file.Files;
import java.nio.file.Path;

/** The WAR under test: failsafe passes its path as {@code echomq.war}; from an IDE, {@code target/echomq.war}. */
final class E2eWar {

    static final String PROPERTY = "echomq.war";

    private E2eWar() {
    }

    static Path path() {
        Path war = Path.of(System.getProperty(PROPERTY, "target/echomq.war")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(war)) {
            throw new IllegalStateException("no WAR at " + war + ": run the end-to-end tests with `mvn -pl web verify`"
                    + " (they need the packaged WAR), or set -D" + PROPERTY + "=<path>");
        }
        return war;
    }
}
