package io.echomq.web;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.appserver.AppServer;
import io.echomq.testkit.appserver.AppServers;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * The WAR deployed for one test class: on Payara Micro (or another {@link AppServers} server)
 * against the run's Valkey (in a database index of the class's own, since the demo queue's keys
 * are fixed) and a fresh PostgreSQL database, with the test users configured.
 */
public final class E2eDeployment implements AutoCloseable {

    /** The demo handler's queue. */
    static final String DEMO_QUEUE = "payments";

    public final AppServer server;
    public final PostgresService.Database database;
    final E2eHttp anonymous;
    final E2eHttp admin;
    final E2eHttp submitter;
    private final ValkeyService valkey;
    private final int valkeyDatabase;

    public E2eDeployment(ValkeyService valkey, PostgresService postgres, int valkeyDatabase, Map<String, String> settings) {
        this(AppServers.PAYARA_MICRO, valkey, postgres, valkeyDatabase, settings);
    }

    public E2eDeployment(AppServers kind, ValkeyService valkey, PostgresService postgres, int valkeyDatabase, Map<String, String> settings) {
        this.valkey = valkey;
        this.valkeyDatabase = valkeyDatabase;
        database = postgres.createDatabase("e2e");
        Map<String, String> env = new HashMap<>(E2eUsers.environment());
        env.put("ECHOMQ_VALKEY_URL", valkey.url() + "/" + valkeyDatabase);
        env.put("ECHOMQ_JDBC_URL", database.jdbcUrl());
        env.put("ECHOMQ_JDBC_USER", database.user());
        env.put("ECHOMQ_JDBC_PASSWORD", database.password());
        env.putAll(settings);
        server = kind.start(E2eWar.path(), env);
        anonymous = new E2eHttp(server.baseUrl());
        admin = anonymous.as(E2eUsers.ADMIN, E2eUsers.ADMIN_PASSWORD);
        submitter = anonymous.as(E2eUsers.SUBMITTER, E2eUsers.SUBMITTER_PASSWORD);
    }

    /** A client of the deployment's Valkey database, for tests that read the queue itself (the reliability checker); the caller closes it. */
    public RedisClient valkeyClient() {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder().database(valkeyDatabase);
        valkey.user().ifPresent(config::user);
        valkey.password().ifPresent(config::password);
        return RedisClient.builder().hostAndPort(valkey.host(), valkey.port()).clientConfig(config.build()).build();
    }

    /** The demo ledger's totals over HTTP: entries, distinctJobs, duplicates, totalCents. */
    JsonObject ledger() {
        return ApiE2eIT.json(submitter.get("/api/demo/ledger"));
    }

    /** Jobs of the demo queue in one state, over HTTP. */
    long count(String state) {
        return ApiE2eIT.json(submitter.get("/api/queues/" + DEMO_QUEUE)).getJsonObject("counts").getJsonNumber(state).longValue();
    }

    /** Waits until the demo queue counts {@code expected} completed jobs, or the timeout passes (the caller asserts). */
    void awaitCompleted(long expected, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count("completed") < expected && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}
