package io.echomq.testkit.appserver;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * An application server unpacked from its Maven Central zip (the web module's build puts them
 * under {@code target/servers/} and names the folder in a system property), and the copies each
 * test server makes of its pieces.
 */
public final class ServerInstall {

    private ServerInstall() {
    }

    /** The folder the system property names; a missing one is an error that says how to get it, never a skip. */
    public static Path home(String property, String marker) {
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

    /**
     * Runs one of the server's own tools to its end ({@code bin/server create}, {@code jboss-cli})
     * in {@code directory} with {@code env} added, and returns what it printed; one that fails,
     * or runs past {@code timeout}, fails with its output.
     */
    static String runTool(List<String> command, Path directory, Map<String, String> env, Duration timeout) {
        ProcessBuilder tool = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        tool.environment().putAll(env);
        try {
            Process process = tool.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed in " + directory + ":\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
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

    /** Names the Java 21+ installation for servers that need one; unset, {@link #java21Home()} looks for one. */
    static final String JAVA21_HOME_PROPERTY = "echomq.java21.home";
    private static final Path DEBIAN_JVMS = Path.of("/usr/lib/jvm");

    /**
     * A Java 21 or later for a server that needs it (Payara Micro 7): the one {@value #JAVA21_HOME_PROPERTY}
     * names, else the test JVM's own when it is one, else the newest under {@code /usr/lib/jvm}
     * (Debian's and the Temurin packages' place). None is an error that says how to name one, never a skip.
     */
    public static Path java21Home() {
        String named = System.getProperty(JAVA21_HOME_PROPERTY);
        if (named != null && !named.isBlank() && !named.startsWith("${")) {
            Path home = Path.of(named).toAbsolutePath().normalize();
            int feature = javaFeature(home);
            if (feature < 21) {
                throw new IllegalStateException(JAVA21_HOME_PROPERTY + "=" + named + " is not a Java 21 or later"
                        + (feature < 0 ? " (no bin/java and release file there)" : " (Java " + feature + ")"));
            }
            return home;
        }
        if (Runtime.version().feature() >= 21) {
            return Path.of(javaHome());
        }
        List<Path> candidates = new ArrayList<>();
        if (Files.isDirectory(DEBIAN_JVMS)) {
            try (Stream<Path> homes = Files.list(DEBIAN_JVMS)) {
                homes.filter(home -> javaFeature(home) >= 21).forEach(candidates::add);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + DEBIAN_JVMS, e);
            }
        }
        return candidates.stream()
                .max(Comparator.comparingInt(ServerInstall::javaFeature).thenComparing(Path::toString))
                .orElseThrow(() -> new IllegalStateException("this server needs Java 21 or later and the tests run on Java "
                        + Runtime.version().feature() + ", with none under " + DEBIAN_JVMS + ": install one (e.g. Temurin 25)"
                        + " or name it with -D" + JAVA21_HOME_PROPERTY + "=<its home>"));
    }

    /** The feature release ({@code 25}) of the JDK or JRE at {@code home}, from its {@code release} file; -1 when it is none. */
    static int javaFeature(Path home) {
        Path release = home.resolve("release");
        if (!Files.isExecutable(home.resolve("bin").resolve("java")) || !Files.isRegularFile(release)) {
            return -1;
        }
        try (InputStream in = Files.newInputStream(release)) {
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("JAVA_VERSION", "").replace("\"", "");
            Matcher feature = Pattern.compile("^(?:1\\.)?(\\d+)").matcher(version);
            return feature.find() ? Integer.parseInt(feature.group(1)) : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
