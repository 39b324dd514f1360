package io.echomq.testkit.services;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether Testcontainers is worth asking. Asking costs half a second and prints an ERROR block
 * when there is no engine, which is every run on machines without Docker; so we first look for
 * any sign of an engine (DOCKER_HOST, a Testcontainers config, a Docker socket in one of the
 * usual places) and ask only then. Decided once per JVM.
 */
final class DockerEngine {

    record Availability(boolean available, String explanation) {
    }

    private static Availability availability;

    private DockerEngine() {
    }

    static synchronized Availability availability() {
        if (availability == null) {
            availability = probe();
        }
        return availability;
    }

    private static Availability probe() {
        Optional<String> sign = signOfAnEngine();
        if (sign.isEmpty()) {
            return new Availability(false, "no Docker engine (DOCKER_HOST unset, no Docker socket, no ~/.testcontainers.properties)");
        }
        try {
            boolean available = ContainerServices.dockerAvailable();
            return new Availability(available, available
                    ? "Docker engine found via " + sign.get()
                    : "Testcontainers found no working Docker engine (looked because of " + sign.get() + ")");
        } catch (LinkageError e) {
            return new Availability(false, "org.testcontainers:testcontainers is not on the test classpath");
        } catch (RuntimeException e) {
            return new Availability(false, "Testcontainers failed to check for Docker: " + e);
        }
    }

    private static Optional<String> signOfAnEngine() {
        if (System.getenv("DOCKER_HOST") != null) {
            return Optional.of("DOCKER_HOST");
        }
        if (System.getProperty("os.name", "").startsWith("Windows")) {
            return Optional.of("Windows (named pipe)");
        }
        String home = System.getProperty("user.home", "");
        if (Files.isRegularFile(Path.of(home, ".testcontainers.properties"))) {
            return Optional.of("~/.testcontainers.properties");
        }
        List<Path> sockets = new ArrayList<>(List.of(
                Path.of("/var/run/docker.sock"),
                Path.of("/run/docker.sock"),
                Path.of(home, ".docker", "run", "docker.sock"),
                Path.of(home, ".docker", "desktop", "docker.sock"),
                Path.of(home, ".colima", "default", "docker.sock"),
                Path.of(home, ".colima", "docker.sock"),
                Path.of(home, ".rd", "docker.sock")));
        String runtimeDirectory = System.getenv("XDG_RUNTIME_DIR");
        if (runtimeDirectory != null && !runtimeDirectory.isBlank()) {
            sockets.add(Path.of(runtimeDirectory, "docker.sock"));
        }
        return sockets.stream().filter(Files::exists).findFirst().map(Path::toString);
    }
}
