package io.echomq.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** What the scenarios share: where child workers write their output, how long a worker JVM may take to start. */
final class Scenarios {

    static final Duration WORKER_START = Duration.ofSeconds(60);

    private Scenarios() {
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
