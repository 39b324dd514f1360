package io.echomq.testkit.services;

import java.io.IOException;
import java.nio.file.Path;
import redis.embedded.core.ExecutableProvider;

/**
 * The Redis 6.2 server binary that the embedded-redis jar carries for the current OS and CPU: the
 * last resort when no server is installed. It lacks Valkey 8 and Redis 7 commands, so it is only
 * good enough to keep a developer going, never what CI should run.
 */
public final class EmbeddedRedisBinary {

    private EmbeddedRedisBinary() {
    }

    public static Path extractInto(Path directory) throws SourceUnavailable, IOException {
        try {
            return ExecutableProvider.newJarResourceProvider(directory.toFile()).get().toPath();
        } catch (NoClassDefFoundError e) {
            throw new SourceUnavailable("com.github.codemonstur:embedded-redis is not on the test classpath");
        } catch (RuntimeException e) {
            throw new SourceUnavailable("embedded-redis has no binary for " + System.getProperty("os.name")
                    + "/" + System.getProperty("os.arch") + ": " + e.getMessage());
        }
    }
}
