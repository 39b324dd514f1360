package io.echomq.testkit.appserver;


import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * The WAR on Open Liberty in a child JVM on loopback, from the runtime the web module's build
 * unpacks ({@code io.openliberty:openliberty-runtime}, folder named by the system property
 * {@value #HOME_PROPERTY}).
 *
 * <p>Each server is a Liberty user folder of its own under
 * {@code ${java.io.tmpdir}/echomq-services/openliberty-<port>/usr} ({@code WLP_USER_DIR}) with one
 * server, {@code echomq}, made as an operator makes it (docs/DEPLOYING.md): {@code bin/server
 * create echomq}, then its {@code server.xml} replaced (the {@link #FEATURES}, HTTP on 127.0.0.1
 * only, no HTTPS, the WAR in {@code apps/} at context root {@code /echomq}) and the settings
 * appended to the {@code server.env} that {@code create} wrote: that file holds the generated
 * keystore and LTPA passwords, and without them Liberty refuses every login ({@code CWWKS4118E}).
 * The server opens one port, HTTP: its command port (for {@code bin/server stop}) is off, it is
 * stopped by signal. {@code bin/server run} execs the JVM, so the process started is the server
 * JVM itself. {@link #forArchives} deploys resource adapters and WARs with features, libraries
 * and {@code server.xml} elements of the caller's choosing.
 */
public final class OpenLibertyServer extends LaunchedAppServer.Unpacked {

    public static final String HOME_PROPERTY = "echomq.openliberty.home";
    /**
     * The Jakarta EE 10 Web Profile and the MicroProfile parts the WAR uses. No mpMetrics: the WAR
     * serves its own {@code /metrics}, and Liberty's would answer 403 at the server root.
     */
    public static final List<String> FEATURES = List.of("webProfile-10.0", "mpConfig-3.1", "mpHealth-4.0", "mpOpenAPI-3.1", "mpTelemetry-2.0");
    /**
     * The same on Jakarta EE 11 (Liberty 26 and later): the Web Profile 11 and MicroProfile OpenAPI
     * 4.0; {@code mpTelemetry-2.0} is the same feature, which Liberty 26 offers for EE 11 too
     * ({@code io.openliberty.mpTelemetry2.0.ee-11.0}; Liberty 25 has no EE 11 variant).
     */
    public static final List<String> FEATURES_EE11 = List.of("webProfile-11.0", "mpConfig-3.1", "mpHealth-4.0", "mpOpenAPI-4.0",
            "mpTelemetry-2.0");

    /**
     * What several archives get by default ({@link #forArchives}): the Web Profile, Jakarta
     * Connectors (resource adapters) and message-driven beans.
     */
    public static final List<String> ADAPTER_FEATURES = List.of("webProfile-10.0", "connectors-2.1", "mdb-4.0");
    /** The same on Jakarta EE 11: Connectors and Enterprise Beans kept their EE 10 versions. */
    public static final List<String> ADAPTER_FEATURES_EE11 = List.of("webProfile-11.0", "connectors-2.1", "mdb-4.0");

    private static final String SERVER = "echomq";
    private static final Duration CREATE_TIMEOUT = Duration.ofMinutes(2);

    private OpenLibertyServer(Path home, int port, String contextRoot, ServerJvm jvm) {
        super(home, port, contextRoot, jvm);
    }

    /**
     * Starts describing the WAR's server: the {@link #FEATURES}, the WAR as {@code echomq.war} at
     * {@code /echomq}, ready once {@code /echomq/api/about} answers.
     */
    public static Builder forWar(Path war) {
        return new Builder(List.of(war), FEATURES).asTheEchoMqWar();
    }

    /**
     * Starts describing a server that deploys {@code archives}, copied into its {@code apps/}
     * folder: each {@code .rar} as {@code <resourceAdapter id="NAME">} (NAME: the file name without
     * {@code .rar}, what {@code resourceAdapter = "NAME"} and {@code properties.NAME} refer to),
     * each {@code .war} as {@code <webApplication>} at context root {@code /NAME} whose class
     * loader sees the adapters' classes ({@code <classloader classProviderRef="…"/>}). The context
     * root is the last WAR's; the readiness path is relative to it.
     *
     * <pre>{@code
     * OpenLibertyServer.forArchives(rar, war)
     *         .library("postgresql", driverJar)
     *         .config("<dataSource jndiName=\"jdbc/orders\" …><jdbcDriver libraryRef=\"postgresql\"/>…</dataSource>",
     *                 "<activationSpec id=\"orders/OrderFulfillment\"><properties.echomq/></activationSpec>")
     *         .env("ECHOMQ_VALKEY_URL", valkey.url())
     *         .readinessPath("/stats")
     *         .start();
     * }</pre>
     */
    public static Builder forArchives(Path... archives) {
        if (archives.length == 0) {
            throw new IllegalArgumentException("no archive to deploy");
        }
        return new Builder(List.of(archives), ADAPTER_FEATURES);
    }

    /** How to start a server; {@link #start()} starts it. */
    public static final class Builder extends LaunchedAppServer.UnpackedServerBuilder<Builder, OpenLibertyServer> {

        private final List<String> features;
        private final Map<String, List<Path>> libraries = new LinkedHashMap<>();
        private final List<String> config = new ArrayList<>();
        // Liberty's default heap is a quarter of the machine's memory; the tests' servers share it.
        private final List<String> jvmOptions = new ArrayList<>(List.of("-Xmx512m"));

        private Builder(List<Path> archives, List<String> features) {
            super(archives, "/", "openliberty", HOME_PROPERTY, "bin/server");
            for (Path archive : this.archives) {
                String name = archive.getFileName().toString();
                if (!name.endsWith(".rar") && !name.endsWith(".war")) {
                    throw new IllegalArgumentException("only .rar and .war archives are deployed: " + archive);
                }
            }
            this.features = new ArrayList<>(features);
        }

        @Override
        Builder self() {
            return this;
        }

        /** The features, replacing the defaults ({@link #FEATURES} for one WAR, {@link #ADAPTER_FEATURES} for several archives). */
        public Builder features(List<String> names) {
            features.clear();
            features.addAll(names);
            return this;
        }

        /** The features, replacing the defaults. */
        public Builder features(String... names) {
            return features(List.of(names));
        }

        /** A shared library {@code <library id="id">} of these jars (copied into the server's folder), e.g. a JDBC driver for {@code <jdbcDriver libraryRef="id"/>}. */
        public Builder library(String id, Path... jars) {
            libraries.put(Objects.requireNonNull(id, "id"),
                    List.of(jars).stream().map(j -> Objects.requireNonNull(j, "jar").toAbsolutePath().normalize()).toList());
            return this;
        }

        /** Elements for {@code server.xml} as written, e.g. a {@code <dataSource>} or an {@code <activationSpec>}. */
        public Builder config(String... elements) {
            config.addAll(List.of(elements));
            return this;
        }

        /** A setting for the server, appended to its {@code server.env} (MicroProfile Config reads it as an environment variable). */
        @Override
        public Builder env(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, () -> "value of " + name);
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*") || value.contains("\n") || value.contains("\r")) {
                throw new IllegalArgumentException("env " + name + ": server.env takes NAME=value lines (a name of letters,"
                        + " digits and _, a value without line breaks)");
            }
            return super.env(name, value);
        }

        /** JVM options ({@code jvm.options} lines) besides the default {@code -Xmx512m}; system properties become {@code -D} lines there too. */
        public Builder jvmOptions(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        /** Creates the server's user folder, writes its configuration and copies the archives and libraries in. */
        @Override
        OpenLibertyServer prepare(Path home, int port, Path directory) {
            Path userDir = directory.resolve("usr");
            Map<String, String> launch = new HashMap<>();
            launch.put("JAVA_HOME", ServerInstall.javaHome());
            launch.put("WLP_USER_DIR", userDir.toString());
            create(home, directory, launch);
            Path server = userDir.resolve("servers").resolve(SERVER);
            ServerInstall.write(server.resolve("server.xml"), serverXml(server, port));
            List<String> options = new ArrayList<>(jvmOptions);
            systemProperties.forEach((key, value) -> options.add("-D" + key + "=" + value));
            ServerInstall.write(server.resolve("jvm.options"), String.join("\n", options) + "\n");
            // bin/server stop's port: the tests stop the server by signal.
            ServerInstall.write(server.resolve("bootstrap.properties"), "command.port=-1\n");
            appendServerEnv(server.resolve("server.env"), env);

            List<String> command = List.of(home.resolve("bin/server").toString(), "run", SERVER);
            ServerJvm jvm = new ServerJvm("Open Liberty", command, launch, directory, Optional.empty(), readiness(port), "[ERROR",
                    startupTimeout);
            return new OpenLibertyServer(home, port, contextRoot(), jvm);
        }

        /** The {@code server.xml}, with the libraries and archives it names copied into {@code server}'s folder. */
        private String serverXml(Path server, int port) {
            LibertyServerXml xml = new LibertyServerXml("EchoMQ end-to-end test").features(features).httpOnLoopback(port);
            libraries.forEach((id, jars) -> {
                List<String> files = new ArrayList<>();
                for (Path jar : jars) {
                    ServerInstall.copy(jar, server.resolve("lib").resolve(id).resolve(jar.getFileName()));
                    files.add("${server.config.dir}/lib/" + id + "/" + jar.getFileName());
                }
                xml.library(id, files);
            });
            config.forEach(elements -> xml.elements(elements.strip()));
            List<String> adapters = new ArrayList<>();
            for (int i = 0; i < archives.size(); i++) {
                String file = deployedNames.get(i);
                String name = file.substring(0, file.length() - ".war".length());
                ServerInstall.copy(archives.get(i), server.resolve("apps").resolve(file));
                if (file.endsWith(".rar")) {
                    adapters.add(name);
                    xml.resourceAdapter(name, "${server.config.dir}/apps/" + file);
                } else {
                    xml.webApplication(file, name, List.copyOf(adapters));
                }
            }
            return xml.toXml();
        }
    }

    /** {@code bin/server create echomq} in the server's own user folder: its server.env holds the generated passwords. */
    private static void create(Path home, Path directory, Map<String, String> launch) {
        ServerInstall.runTool(List.of(home.resolve("bin/server").toString(), "create", SERVER), directory, launch, CREATE_TIMEOUT);
    }

    /**
     * Adds {@code NAME=value} lines to a {@code server.env}, keeping what is there: the
     * {@code keystore_password} and {@code ltpa_keys_password} that {@code bin/server create}
     * generated. Overwritten, the file loses them and every login fails with {@code CWWKS4118E}.
     */
    static void appendServerEnv(Path serverEnv, Map<String, String> variables) {
        StringBuilder lines = new StringBuilder();
        try {
            if (Files.exists(serverEnv) && Files.size(serverEnv) > 0 && !Files.readString(serverEnv).endsWith("\n")) {
                lines.append('\n');
            }
            variables.forEach((name, value) -> lines.append(name).append('=').append(value).append('\n'));
            Files.writeString(serverEnv, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + serverEnv, e);
        }
    }

    @Override
    public String name() {
        return "openliberty";
    }

    /** The {@code productVersion} of {@code lib/versions/openliberty.properties}. */
    @Override
    public String version() {
        Properties product = new Properties();
        try (InputStream in = Files.newInputStream(home.resolve("lib/versions/openliberty.properties"))) {
            product.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Open Liberty's version in " + home, e);
        }
        return product.getProperty("com.ibm.websphere.productVersion", "unknown");
    }
}
