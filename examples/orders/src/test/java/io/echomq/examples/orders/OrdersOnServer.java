package io.echomq.examples.orders;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.appserver.AppServer;
import io.echomq.testkit.appserver.AppServers;
import io.echomq.testkit.appserver.OpenLibertyServer;
import io.echomq.testkit.appserver.PayaraMicroServer;
import io.echomq.testkit.appserver.WildFlyServer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * echomq.rar and orders.war on one of the servers ({@link Kind}), as an administrator would run
 * them: the PostgreSQL driver and the server's JTA data source {@code jdbc/orders} on this
 * scenario's database, the adapter's Valkey from {@code ECHOMQ_VALKEY_URL}. One fresh PostgreSQL
 * database and one Valkey database index per scenario (the queue's name, orders, is fixed by the
 * bean's activation); each server kind uses its own range of indexes, so the ITs of several
 * servers can share one Valkey in one test JVM.
 */
final class OrdersOnServer implements AutoCloseable {

    static final String QUEUE = "orders";
    private static final Pattern HOST_PORT = Pattern.compile("^jdbc:postgresql://([^:/?]+)(?::(\\d+))?/.*$");

    final PostgresService.Database database;
    final DataSource db;
    private final ValkeyService valkey;
    private final int valkeyDatabase;
    private final Map<String, String> env;
    private final RedisClient redis;
    final QueueClient queue;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    final Kind kind;
    AppServer server;

    /**
     * @param scenario which of the kind's Valkey database indexes (0 to 3)
     * @param env the adapter's settings as the server's environment ({@code ECHOMQ_WORKER_LEASE_MS}, …)
     */
    OrdersOnServer(Kind kind, ValkeyService valkey, PostgresService postgres, int scenario, Map<String, String> env) {
        if (scenario < 0 || scenario > 3) {
            throw new IllegalArgumentException("scenario index out of 0..3: " + scenario);
        }
        this.kind = kind;
        this.valkey = valkey;
        this.valkeyDatabase = kind.firstValkeyDatabase + scenario;
        this.env = env;
        this.database = postgres.createDatabase("orders");
        this.db = database.dataSource();
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder().database(valkeyDatabase);
        valkey.user().ifPresent(config::user);
        valkey.password().ifPresent(config::password);
        this.redis = RedisClient.builder().hostAndPort(valkey.host(), valkey.port()).clientConfig(config.build()).build();
        this.queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
        QueueStats before = queue.reads().stats(QUEUE);
        if (before.total() > 0) {
            throw new IllegalStateException("Valkey database " + valkeyDatabase + " already holds jobs of queue " + QUEUE + ": " + before);
        }
    }

    /** The servers, each with what it needs besides the two archives (the findings are in each constant's comment). */
    enum Kind {
        /**
         * The driver on the server's class path ({@code --addlibs}), the pool and {@code jdbc/orders}
         * by post-boot asadmin commands; {@code --deploy echomq.rar} before {@code --deploy orders.war}.
         */
        PAYARA_MICRO(8) {
            @Override
            AppServer start(OrdersOnServer app, Map<String, String> systemProperties) {
                PayaraMicroServer.Builder builder = PayaraMicroServer.forArchives(path("echomq.rar"), path("orders.war"))
                        .addLibs(path("postgresql.driver"))
                        .postBootCommands(app.payaraDataSourceCommands())
                        .env(app.serverEnv())
                        .jvmOptions(app.jvmOptions("-Xmx768m"))
                        .readinessPath("/stats");
                app.startupTimeout.ifPresent(builder::startupTimeout);
                systemProperties.forEach(builder::systemProperty);
                return builder.start();
            }
        },
        /**
         * {@code standalone.xml} (standalone-microprofile.xml has no ejb3 subsystem at all: no
         * session beans, no MDBs). The driver deployed as {@code postgresql.jar}; by the embedded
         * CLI: the data source at {@code java:/jdbc/orders} (WildFly's names need java:/ or
         * java:jboss/; the application's {@code jdbc/orders} resolves to it), the ejb3 subsystem's
         * MDB defaults as standalone-full.xml has them (standalone.xml has none: without them the
         * WAR fails to parse, "jboss.ejb.default-resource-adapter-name-service not found"; the
         * default adapter named, ActiveMQ's, need not exist), and the adapter activated
         * from its deployment (a RAR without an activation is deployed but never started, and the
         * MDB waits for "jboss.ra.echomq" forever). The WAR's own jboss-ejb3.xml binds the bean to
         * echomq.rar; its jboss-deployment-structure.xml gives it the adapter's classes.
         */
        WILDFLY(4) {
            @Override
            AppServer start(OrdersOnServer app, Map<String, String> systemProperties) {
                WildFlyServer.Builder builder = WildFlyServer.forArchives(driverAs("postgresql.jar"), path("echomq.rar"), path("orders.war"))
                        .serverConfig("standalone.xml")
                        .cliCommands(app.wildFlyCommands())
                        .env(app.serverEnv())
                        .javaOpts("-Xms64m -Xmx768m -XX:MetaspaceSize=96M -XX:MaxMetaspaceSize=512m -Djava.net.preferIPv4Stack=true")
                        .readinessPath("/stats");
                systemProperties.forEach(builder::systemProperty);
                return builder.start();
            }
        },
        /**
         * Features webProfile-10.0, connectors-2.1, mdb-4.0; the adapter as
         * {@code <resourceAdapter id="echomq">}, the WAR's class loader given its classes
         * ({@code classProviderRef}); the driver as a library and {@code <dataSource
         * jndiName="jdbc/orders">} (a ConnectionPoolDataSource: one-phase, no XA); and an
         * {@code <activationSpec id="orders/OrderFulfillment">} (application/bean): without it
         * Liberty deploys the WAR but never activates the bean, with only a warning (CNTR4015W).
         */
        OPEN_LIBERTY(0) {
            @Override
            AppServer start(OrdersOnServer app, Map<String, String> systemProperties) {
                return app.onLiberty(OpenLibertyServer.forArchives(path("echomq.rar"), path("orders.war")), systemProperties);
            }
        },
        /**
         * The same on Jakarta EE 11: the newest Open Liberty ({@link AppServers#OPEN_LIBERTY_NEWEST_HOME})
         * with {@link OpenLibertyServer#ADAPTER_FEATURES_EE11} (webProfile-11.0; Connectors 2.1
         * and Enterprise Beans 4.0 are unchanged in EE 11).
         */
        OPEN_LIBERTY_NEWEST(12) {
            @Override
            AppServer start(OrdersOnServer app, Map<String, String> systemProperties) {
                return app.onLiberty(OpenLibertyServer.forArchives(path("echomq.rar"), path("orders.war"))
                        .homeProperty(AppServers.OPEN_LIBERTY_NEWEST_HOME).features(OpenLibertyServer.ADAPTER_FEATURES_EE11), systemProperties);
            }
        };


        final int firstValkeyDatabase;

        Kind(int firstValkeyDatabase) {
            this.firstValkeyDatabase = firstValkeyDatabase;
        }

        /** Starts the server for {@code app}, {@code systemProperties} as {@code -D} of its JVM; returns once /orders/stats answers. */
        abstract AppServer start(OrdersOnServer app, Map<String, String> systemProperties);
    }

    /** What every Liberty needs for the two archives: the driver, jdbc/orders, the bean's activation. */
    private AppServer onLiberty(OpenLibertyServer.Builder builder, Map<String, String> systemProperties) {
        builder.library("postgresql", path("postgresql.driver"))
                .config(libertyDataSource(), "<activationSpec id=\"orders/OrderFulfillment\"><properties.echomq/></activationSpec>")
                .env(serverEnv())
                .jvmOptions("-Xmx768m")
                .readinessPath("/stats");
        systemProperties.forEach(builder::systemProperty);
        return builder.start();
    }

    private Map<String, String> serverEnv() {
        Map<String, String> all = new java.util.LinkedHashMap<>(env);
        all.put("ECHOMQ_VALKEY_URL", valkey.url() + "/" + valkeyDatabase);
        return all;
    }

    private record HostPort(String host, String port) {
    }

    private HostPort hostPort() {
        Matcher url = HOST_PORT.matcher(database.jdbcUrl());
        if (!url.matches()) {
            throw new IllegalStateException("cannot read host and port from " + database.jdbcUrl());
        }
        return new HostPort(url.group(1), url.group(2) == null ? "5432" : url.group(2));
    }

    /** The pool on this scenario's database and the server resource jdbc/orders on it, as asadmin commands. */
    String[] payaraDataSourceCommands() {
        HostPort at = hostPort();
        String properties = String.join(":",
                "serverName=" + escape(at.host()),
                "portNumber=" + at.port(),
                "databaseName=" + escape(database.name()),
                "user=" + escape(database.user()),
                "password=" + escape(database.password()));
        return new String[] {
                "create-jdbc-connection-pool --datasourceclassname org.postgresql.ds.PGSimpleDataSource"
                        + " --restype javax.sql.DataSource --steadypoolsize 2 --maxpoolsize 32"
                        + " --property " + properties + " orders-pool",
                "create-jdbc-resource --connectionpoolid orders-pool jdbc/orders"};
    }

    /** WildFly's CLI: the data source, the MDB defaults standalone.xml lacks, the adapter's activation. */
    String[] wildFlyCommands() {
        return new String[] {
                "data-source add --name=orders --jndi-name=java:/jdbc/orders --driver-name=postgresql.jar"
                        + " --connection-url=" + database.jdbcUrl() + " --user-name=" + cliValue(database.user())
                        + " --password=" + cliValue(database.password()) + " --jta=true --min-pool-size=2 --max-pool-size=32",
                // As standalone-full.xml has them; the bean is bound to echomq.rar by the WAR's jboss-ejb3.xml, not by this default.
                "/subsystem=ejb3:write-attribute(name=default-resource-adapter-name,value=activemq-ra.rar)",
                "/subsystem=ejb3:write-attribute(name=default-mdb-instance-pool,value=mdb-strict-max-pool)",
                "/subsystem=resource-adapters/resource-adapter=echomq.rar:add(archive=echomq.rar,transaction-support=LocalTransaction)"};
    }

    /** Liberty's data source jdbc/orders on this scenario's database. */
    String libertyDataSource() {
        HostPort at = hostPort();
        return "<dataSource id=\"orders\" jndiName=\"jdbc/orders\" type=\"javax.sql.ConnectionPoolDataSource\">"
                + "<jdbcDriver libraryRef=\"postgresql\"/>"
                + "<properties.postgresql serverName=\"" + xml(at.host()) + "\" portNumber=\"" + at.port()
                + "\" databaseName=\"" + xml(database.name()) + "\" user=\"" + xml(database.user())
                + "\" password=\"" + xml(database.password()) + "\"/>"
                + "<connectionManager minPoolSize=\"2\" maxPoolSize=\"32\"/>"
                + "</dataSource>";
    }

    private static String cliValue(String value) {
        if (!value.matches("[A-Za-z0-9_.@-]+")) {
            throw new IllegalStateException("a value the CLI line would need quoting for: " + value);
        }
        return value;
    }

    private static String xml(String value) {
        return value.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }

    /** The driver jar under the name WildFly registers the driver by (the deployment's name). */
    private static Path driverAs(String name) {
        Path copy = Path.of(System.getProperty("java.io.tmpdir"), "drivers", name);
        try {
            java.nio.file.Files.createDirectories(copy.getParent());
            java.nio.file.Files.copy(path("postgresql.driver"), copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return copy;
    }

    /**
     * Empties the Valkey database of {@code kind}'s {@code scenario} (FLUSHDB, on the test JVM's
     * own Valkey): for a check that borrows a scenario's database, so that it starts empty and
     * leaves it empty for the scenario, whichever runs first.
     */
    static void emptyValkeyDatabase(Kind kind, ValkeyService valkey, int scenario) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder().database(kind.firstValkeyDatabase + scenario);
        valkey.user().ifPresent(config::user);
        valkey.password().ifPresent(config::password);
        try (RedisClient client = RedisClient.builder().hostAndPort(valkey.host(), valkey.port()).clientConfig(config.build()).build()) {
            client.flushDB();
        }
    }

    /** Options the server's JVM gets besides the kind's own (the OpenTelemetry agent, say); Payara Micro only, for now. */
    private final java.util.List<String> extraJvmOptions = new java.util.ArrayList<>();

    private java.util.Optional<Duration> startupTimeout = java.util.Optional.empty();

    OrdersOnServer withJvmOptions(String... options) {
        extraJvmOptions.addAll(java.util.List.of(options));
        return this;
    }

    /** A longer start than the launcher's default (an agent that instruments every class loaded slows it); Payara Micro only, for now. */
    OrdersOnServer withStartupTimeout(Duration timeout) {
        startupTimeout = java.util.Optional.of(timeout);
        return this;
    }

    private String[] jvmOptions(String... own) {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(own));
        all.addAll(extraJvmOptions);
        return all.toArray(String[]::new);
    }

    /** The system property naming a file the build resolved (the adapter, the driver, the OpenTelemetry agent). */
    static Path resolved(String property) {
        return path(property);
    }

    OrdersOnServer start() {
        return start(Map.of());
    }

    OrdersOnServer start(Map<String, String> systemProperties) {
        if (server != null) {
            server.stop();
        }
        server = kind.start(this, systemProperties);
        return this;
    }

    /** asadmin's property list separates with ':'; a value's own ':' (and '=') are escaped. */
    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace(":", "\\:").replace("=", "\\=");
    }

    private static Path path(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank() || value.startsWith("${")) {
            throw new IllegalStateException("system property " + property + " is not set (run through failsafe: mvn verify -pl examples/orders -am)");
        }
        return Path.of(value);
    }

    // ---- HTTP

    record Answer(int status, String body) {
        JsonObject json() {
            try (JsonReader reader = Json.createReader(new StringReader(body))) {
                return reader.readObject();
            }
        }
    }

    Answer post(String path, String json) throws IOException, InterruptedException {
        return post(path, json, Map.of());
    }

    /** A POST with headers of the caller's own (a W3C {@code traceparent}, say). */
    Answer post(String path, String json, Map<String, String> headers) throws IOException, InterruptedException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json");
        headers.forEach(builder::header);
        HttpRequest request = builder.POST(HttpRequest.BodyPublishers.ofString(json)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body());
    }

    Answer get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json").GET().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body());
    }

    JsonObject stats() throws IOException, InterruptedException {
        Answer answer = get("/stats");
        if (answer.status() != 200) {
            throw new AssertionError("GET /orders/stats answered " + answer);
        }
        return answer.json();
    }

    // ---- the database, read directly (not through the application)

    long count(String sql) {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    long orders() {
        return count("SELECT count(*) FROM orders.orders");
    }

    long effectRows() {
        return count("SELECT count(*) FROM orders.order_effects");
    }

    /** Orders no effect row stands for. */
    long ordersWithoutEffect() {
        return count("SELECT count(*) FROM orders.orders o WHERE NOT EXISTS (SELECT 1 FROM orders.order_effects e WHERE e.order_id = o.id)");
    }

    /** Effect rows beyond the first of their order. */
    long duplicateEffects() {
        return count("SELECT count(*) - count(DISTINCT order_id) FROM orders.order_effects");
    }

    /** Effect rows of orders that do not exist. */
    long orphanEffects() {
        return count("SELECT count(*) FROM orders.order_effects e WHERE NOT EXISTS (SELECT 1 FROM orders.orders o WHERE o.id = e.order_id)");
    }

    /** Rows waiting in the adapter's outbox. */
    long outbox() {
        return count("SELECT count(*) FROM echomq.outbox");
    }

    /** Jobs of the queue not yet finished in Valkey. */
    long unfinished() {
        QueueStats stats = queue.reads().stats(QUEUE);
        return stats.pending() + stats.delayed() + stats.active();
    }

    static void await(String what, Duration timeout, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            Thread.sleep(50);
        }
    }

    /** Every job run and settled: the outbox empty, nothing pending, delayed or running in Valkey, every order with its effect. */
    void awaitQuiet(Duration timeout) throws InterruptedException {
        await("outbox empty, queue drained, every order with an effect row", timeout,
                () -> outbox() == 0 && unfinished() == 0 && ordersWithoutEffect() == 0);
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop();
        }
        redis.close();
    }
}
