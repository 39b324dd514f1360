package io.echomq.examples.orders;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.testkit.PayaraMicroServer;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
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
 * echomq.rar and orders.war on Payara Micro, as an administrator would run them: the PostgreSQL
 * driver on the server's class path ({@code --addlibs}), the pool and {@code jdbc/orders} made by
 * post-boot asadmin commands, the adapter's Valkey from {@code ECHOMQ_VALKEY_URL}. One fresh
 * PostgreSQL database and one Valkey database index per scenario (the queue's name, orders, is
 * fixed by the bean's activation).
 */
final class OrdersOnPayara implements AutoCloseable {

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
    PayaraMicroServer server;

    /**
     * @param env the adapter's settings as the server's environment ({@code ECHOMQ_WORKER_LEASE_MS}, …)
     */
    OrdersOnPayara(ValkeyService valkey, PostgresService postgres, int valkeyDatabase, Map<String, String> env) {
        this.valkey = valkey;
        this.valkeyDatabase = valkeyDatabase;
        this.env = env;
        this.database = postgres.createDatabase("orders");
        this.db = database.dataSource();
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder().database(valkeyDatabase);
        valkey.user().ifPresent(config::user);
        valkey.password().ifPresent(config::password);
        this.redis = RedisClient.builder().hostAndPort(valkey.host(), valkey.port()).clientConfig(config.build()).build();
        this.queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
        QueueStats before = queue.stats(QUEUE);
        if (before.total() > 0) {
            throw new IllegalStateException("Valkey database " + valkeyDatabase + " already holds jobs of queue " + QUEUE + ": " + before);
        }
    }

    /** How to start the server; {@code systemProperties} as {@code -D} of its JVM. */
    PayaraMicroServer.Builder builder(Map<String, String> systemProperties) {
        PayaraMicroServer.Builder builder = PayaraMicroServer.forArchives(path("echomq.rar"), path("orders.war"))
                .addLibs(path("postgresql.driver"))
                .postBootCommands(dataSourceCommands())
                .env("ECHOMQ_VALKEY_URL", valkey.url() + "/" + valkeyDatabase)
                .env(env)
                .jvmOptions("-Xmx768m")
                .readinessPath("/stats");
        systemProperties.forEach(builder::systemProperty);
        return builder;
    }

    /** The pool on this scenario's database and the server resource jdbc/orders on it, as asadmin commands. */
    String[] dataSourceCommands() {
        Matcher url = HOST_PORT.matcher(database.jdbcUrl());
        if (!url.matches()) {
            throw new IllegalStateException("cannot read host and port from " + database.jdbcUrl());
        }
        String properties = String.join(":",
                "serverName=" + escape(url.group(1)),
                "portNumber=" + (url.group(2) == null ? "5432" : url.group(2)),
                "databaseName=" + escape(database.name()),
                "user=" + escape(database.user()),
                "password=" + escape(database.password()));
        return new String[] {
                "create-jdbc-connection-pool --datasourceclassname org.postgresql.ds.PGSimpleDataSource"
                        + " --restype javax.sql.DataSource --steadypoolsize 2 --maxpoolsize 32"
                        + " --property " + properties + " orders-pool",
                "create-jdbc-resource --connectionpoolid orders-pool jdbc/orders"};
    }

    OrdersOnPayara start() {
        return start(Map.of());
    }

    OrdersOnPayara start(Map<String, String> systemProperties) {
        if (server != null) {
            server.stop();
        }
        server = builder(systemProperties).start();
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
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
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
        QueueStats stats = queue.stats(QUEUE);
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
