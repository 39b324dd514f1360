package io.echomq.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
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
 * process started is the server JVM itself.
 */
public final class OpenLibertyServer extends LaunchedAppServer {

    public static final String HOME_PROPERTY = "echomq.openliberty.home";
    /**
     * The Jakarta EE 10 Web Profile and the MicroProfile parts the WAR uses. No mpMetrics: the WAR
     * serves its own {@code /metrics}, and Liberty's would answer 403 at the server root.
     */
    public static final List<String> FEATURES = List.of("webProfile-10.0", "mpConfig-3.1", "mpHealth-4.0", "mpOpenAPI-3.1");

    private static final String SERVER = "echomq";
    private static final String CONTEXT_ROOT = "echomq";

    private final Path home;

    private OpenLibertyServer(Path home, int port, ServerJvm jvm) {
        super(port, CONTEXT_ROOT, jvm);
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

        Map<String, String> launch = new HashMap<>(env);
        launch.put("JAVA_HOME", ServerInstall.javaHome());
        launch.put("WLP_USER_DIR", userDir.toString());
        List<String> command = List.of(home.resolve("bin/server").toString(), "run", SERVER);
        URI readiness = URI.create("http://127.0.0.1:" + port + "/" + CONTEXT_ROOT + "/api/about");
        ServerJvm jvm = new ServerJvm("Open Liberty", command, launch, directory, Optional.empty(), readiness, "[ERROR",
                ServerJvm.DEFAULT_STARTUP_TIMEOUT);
        OpenLibertyServer started = new OpenLibertyServer(home, port, jvm);
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
