package io.echomq.testkit.appserver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * The Jakarta EE servers the end-to-end tests deploy the same WAR to, each started the way its
 * launcher does (free loopback port, context root {@code /echomq}, readiness on {@code /api/about}):
 * of each family the release the project was built against and the newest one. The newest ones
 * come from the system properties the web module's failsafe configuration sets.
 */
public enum AppServers {

    /** Payara Micro 6 (Jakarta EE 10), the {@code payara-micro} jar on the class path, on the test JVM's Java. */
    PAYARA_MICRO(PayaraMicroServer::forWar),
    /** Payara Micro 7 (Jakarta EE 11): the jar {@value #PAYARA_MICRO_NEWEST_JAR} names, on a Java 21 or later ({@link ServerInstall#java21Home()}). */
    PAYARA_MICRO_NEWEST(war -> PayaraMicroServer.forWar(war).payaraJar(file(AppServers.PAYARA_MICRO_NEWEST_JAR)).javaHome(ServerInstall.java21Home())),
    /** WildFly 35 ({@value WildFlyServer#HOME_PROPERTY}). */
    WILDFLY(WildFlyServer::forWar),
    /** The newest WildFly ({@value #WILDFLY_NEWEST_HOME}), the same configuration. */
    WILDFLY_NEWEST(war -> WildFlyServer.forWar(war).homeProperty(AppServers.WILDFLY_NEWEST_HOME)),
    /** Open Liberty 25 ({@value OpenLibertyServer#HOME_PROPERTY}) with the Jakarta EE 10 {@link OpenLibertyServer#FEATURES}. */
    OPEN_LIBERTY(OpenLibertyServer::forWar),
    /** The newest Open Liberty ({@value #OPEN_LIBERTY_NEWEST_HOME}) with the Jakarta EE 11 {@link OpenLibertyServer#FEATURES_EE11}. */
    OPEN_LIBERTY_NEWEST(war -> OpenLibertyServer.forWar(war).homeProperty(AppServers.OPEN_LIBERTY_NEWEST_HOME).features(OpenLibertyServer.FEATURES_EE11));

    /** The Payara Micro 7 jar. */
    public static final String PAYARA_MICRO_NEWEST_JAR = "echomq.payara-micro.newest.jar";
    /** The unpacked newest WildFly. */
    public static final String WILDFLY_NEWEST_HOME = "echomq.wildfly.newest.home";
    /** The unpacked newest Open Liberty ({@code wlp}). */
    public static final String OPEN_LIBERTY_NEWEST_HOME = "echomq.openliberty.newest.home";

    private final Function<Path, LaunchedAppServer.Builder<?, ?>> forWar;

    AppServers(Function<Path, LaunchedAppServer.Builder<?, ?>> forWar) {
        this.forWar = forWar;
    }

    /** Deploys {@code war} with {@code env} (MicroProfile Config reads it) and returns once the application answers. */
    public AppServer start(Path war, Map<String, String> env) {
        return forWar.apply(war).env(env).start();
    }

    private static Path file(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank() || value.startsWith("${")) {
            throw new IllegalStateException("system property " + property + " names no file (the web module's failsafe"
                    + " configuration sets it; run `mvn -pl web -am verify`, which fetches it first)");
        }
        Path path = Path.of(value).toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("no file at " + path + " (" + property + ")");
        }
        return path;
    }
}
