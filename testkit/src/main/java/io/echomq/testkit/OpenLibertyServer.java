package io.echomq.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The WAR on Open Liberty in a child JVM on loopback, from the runtime the web module's build
 * unpacks ({@code io.openliberty:openliberty-runtime}, folder named by the system property
 * {@value #HOME_PROPERTY}).
 *
 * <p>Each server is a Liberty user folder of its own under
 * {@code ${java.io.tmpdir}/echomq-services/openliberty-<port>/usr} ({@code WLP_USER_DIR}) with one
 * server, {@code echomq}: the {@link #FEATURES} in its {@code server.xml} (what an operator
 * writes; docs/DEPLOYING.md shows the same list), HTTP on 127.0.0.1 only, no HTTPS, the WAR in
 * {@code apps/} at context root {@code /echomq}. {@code bin/server run} execs the JVM, so the
 * process started is the server JVM itself. {@link #forArchives} deploys resource adapters and
 * WARs with features, libraries and {@code server.xml} elements of the caller's choosing.
 */
public final class OpenLibertyServer extends LaunchedAppServer {

    public static final String HOME_PROPERTY = "echomq.openliberty.home";
    /**
     * The Jakarta EE 10 Web Profile and the MicroProfile parts the WAR uses. No mpMetrics: the WAR
     * serves its own {@code /metrics}, and Liberty's would answer 403 at the server root.
     */
    public static final List<String> FEATURES = List.of("webProfile-10.0", "mpConfig-3.1", "mpHealth-4.0", "mpOpenAPI-3.1");

    /**
     * What several archives get by default ({@link #forArchives}): the Web Profile, Jakarta
     * Connectors (resource adapters) and message-driven beans.
     */
    public static final List<String> ADAPTER_FEATURES = List.of("webProfile-10.0", "connectors-2.1", "mdb-4.0");

    private static final String SERVER = "echomq";
    private static final String CONTEXT_ROOT = "echomq";

    private final Path home;

    private OpenLibertyServer(Path home, int port, String contextRoot, ServerJvm jvm) {
        super(port, contextRoot, jvm);
        this.home = home;
    }

    /** Deploys {@code war} with {@code env} on the unpacked Open Liberty and returns once the application answers. */
    public static OpenLibertyServer start(Path war, Map<String, String> env) {
        Path home = ServerInstall.home(HOME_PROPERTY, "bin/server");
        int port = FreePort.onLoopback();
        Path directory = ServiceDirectories.fresh("openliberty-" + port);
        Path userDir = directory.resolve("usr");
        Path server = userDir.resolve("servers").resolve(SERVER);
        ServerInstall.write(server.resolve("server.xml"), serverXml(port));
        // Liberty's default heap is a quarter of the machine's memory; the tests' servers share it.
        ServerInstall.write(server.resolve("jvm.options"), "-Xmx512m\n");
        ServerInstall.copy(war, server.resolve("apps").resolve(CONTEXT_ROOT + ".war"));
        return launch(home, port, directory, CONTEXT_ROOT, "/api/about", env, ServerJvm.DEFAULT_STARTUP_TIMEOUT);
    }

    private static OpenLibertyServer launch(Path home, int port, Path directory, String contextRoot, String readinessPath,
                                            Map<String, String> env, Duration startupTimeout) {
        Map<String, String> launch = new HashMap<>(env);
        launch.put("JAVA_HOME", ServerInstall.javaHome());
        launch.put("WLP_USER_DIR", directory.resolve("usr").toString());
        List<String> command = List.of(home.resolve("bin/server").toString(), "run", SERVER);
        URI readiness = URI.create("http://127.0.0.1:" + port + (contextRoot.isEmpty() ? "" : "/" + contextRoot) + readinessPath);
        ServerJvm jvm = new ServerJvm("Open Liberty", command, launch, directory, Optional.empty(), readiness, "[ERROR",
                startupTimeout);
        OpenLibertyServer started = new OpenLibertyServer(home, port, contextRoot, jvm);
        jvm.launch();
        return started;
    }

    static String serverXml(int port) {
        StringBuilder features = new StringBuilder();
        FEATURES.forEach(feature -> features.append("        <feature>").append(feature).append("</feature>\n"));
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <server description="EchoMQ end-to-end test">
                    <featureManager>
                %s    </featureManager>
                    <httpEndpoint id="defaultHttpEndpoint" host="127.0.0.1" httpPort="%d" httpsPort="-1"/>
                    <webApplication location="%s.war" contextRoot="/%s"/>
                </server>
                """.formatted(features, port, CONTEXT_ROOT, CONTEXT_ROOT);
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
        return new Builder(List.of(archives));
    }

    /** How to start a server; {@link #start()} starts it. */
    public static final class Builder {

        private final List<Path> archives;
        private final List<String> features = new ArrayList<>(ADAPTER_FEATURES);
        private final Map<String, List<Path>> libraries = new LinkedHashMap<>();
        private final List<String> config = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private final Map<String, String> systemProperties = new LinkedHashMap<>();
        private final List<String> jvmOptions = new ArrayList<>(List.of("-Xmx512m"));
        private String readinessPath = "/";
        private Duration startupTimeout = ServerJvm.DEFAULT_STARTUP_TIMEOUT;

        private Builder(List<Path> archives) {
            this.archives = archives.stream().map(a -> Objects.requireNonNull(a, "archive").toAbsolutePath().normalize()).toList();
            for (Path archive : this.archives) {
                String name = archive.getFileName().toString();
                if (!name.endsWith(".rar") && !name.endsWith(".war")) {
                    throw new IllegalArgumentException("only .rar and .war archives are deployed: " + archive);
                }
            }
        }

        /** The features, replacing {@link #ADAPTER_FEATURES}. */
        public Builder features(String... names) {
            features.clear();
            features.addAll(List.of(names));
            return this;
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

        /** Environment variables for the server JVM ({@code bin/server run} passes its environment on). */
        public Builder env(Map<String, String> variables) {
            variables.forEach(this::env);
            return this;
        }

        public Builder env(String name, String value) {
            env.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, () -> "value of " + name));
            return this;
        }

        /** A system property of the server JVM (a {@code -Dkey=value} line in {@code jvm.options}). */
        public Builder systemProperty(String key, String value) {
            systemProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, () -> "value of " + key));
            return this;
        }

        /** JVM options ({@code jvm.options} lines) besides the default {@code -Xmx512m}. */
        public Builder jvmOptions(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        /** The path (relative to {@link #baseUrl()}) that must answer 200 before {@link #start()} returns. */
        public Builder readinessPath(String path) {
            this.readinessPath = path.startsWith("/") ? path : "/" + path;
            return this;
        }

        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Writes the server's folder and starts it; returns once the readiness path answers 200.
         *
         * @throws IllegalStateException when the start or a deployment failed (the message ends with the server's log)
         */
        public OpenLibertyServer start() {
            for (Path archive : archives) {
                if (!Files.isRegularFile(archive)) {
                    throw new IllegalStateException("no archive at " + archive + " (build it first: mvn -pl <module> -am package)");
                }
            }
            Path home = ServerInstall.home(HOME_PROPERTY, "bin/server");
            int port = FreePort.onLoopback();
            Path directory = ServiceDirectories.fresh("openliberty-" + port);
            Path server = directory.resolve("usr").resolve("servers").resolve(SERVER);

            StringBuilder xml = new StringBuilder("""
                    <?xml version="1.0" encoding="UTF-8"?>
                    <server description="EchoMQ end-to-end test">
                        <featureManager>
                    """);
            features.forEach(feature -> xml.append("        <feature>").append(feature).append("</feature>\n"));
            xml.append("    </featureManager>\n")
                    .append("    <httpEndpoint id=\"defaultHttpEndpoint\" host=\"127.0.0.1\" httpPort=\"").append(port)
                    .append("\" httpsPort=\"-1\"/>\n");
            libraries.forEach((id, jars) -> {
                xml.append("    <library id=\"").append(id).append("\">\n");
                for (Path jar : jars) {
                    ServerInstall.copy(jar, server.resolve("lib").resolve(id).resolve(jar.getFileName()));
                    xml.append("        <file name=\"${server.config.dir}/lib/").append(id).append('/').append(jar.getFileName())
                            .append("\"/>\n");
                }
                xml.append("    </library>\n");
            });
            config.forEach(element -> xml.append("    ").append(element.strip()).append('\n'));
            List<String> adapters = new ArrayList<>();
            String contextRoot = "";
            for (Path archive : archives) {
                String file = archive.getFileName().toString();
                String name = file.substring(0, file.length() - 4);
                ServerInstall.copy(archive, server.resolve("apps").resolve(file));
                if (file.endsWith(".rar")) {
                    adapters.add(name);
                    xml.append("    <resourceAdapter id=\"").append(name).append("\" location=\"${server.config.dir}/apps/")
                            .append(file).append("\"/>\n");
                } else {
                    contextRoot = name;
                    xml.append("    <webApplication location=\"").append(file).append("\" contextRoot=\"/").append(name).append('"');
                    if (adapters.isEmpty()) {
                        xml.append("/>\n");
                    } else {
                        xml.append(">\n        <classloader classProviderRef=\"").append(String.join(",", adapters))
                                .append("\"/>\n    </webApplication>\n");
                    }
                }
            }
            xml.append("</server>\n");
            ServerInstall.write(server.resolve("server.xml"), xml.toString());
            List<String> options = new ArrayList<>(jvmOptions);
            systemProperties.forEach((key, value) -> options.add("-D" + key + "=" + value));
            ServerInstall.write(server.resolve("jvm.options"), String.join("\n", options) + "\n");
            return launch(home, port, directory, contextRoot, readinessPath, env, startupTimeout);
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
