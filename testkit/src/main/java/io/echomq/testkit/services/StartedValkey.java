package io.echomq.testkit.services;

import io.echomq.testkit.ValkeyService;
import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;

/** A reachable server and what stops it (nothing, for a server somebody else runs). */
public record StartedValkey(String host, int port, Optional<String> user, Optional<String> password,
                     String description, String serverVersion, boolean isChildProcess,
                     Closeable stopper) implements ValkeyService, Closeable {

    @Override
    public void close() throws IOException {
        stopper.close();
    }

    @Override
    public String toString() {
        return "ValkeyService[" + description + "]";
    }
}
