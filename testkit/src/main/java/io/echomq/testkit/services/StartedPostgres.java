package io.echomq.testkit.services;

import io.echomq.testkit.PostgresService;
import java.io.Closeable;
import java.io.IOException;

/** A reachable server and what stops it (nothing, for a server somebody else runs). */
public record StartedPostgres(String jdbcUrl, String user, String password, String description, String serverVersion,
                       Closeable stopper) implements PostgresService, Closeable {

    @Override
    public void close() throws IOException {
        stopper.close();
    }

    @Override
    public String toString() {
        return "PostgresService[" + description + "]";
    }
}
