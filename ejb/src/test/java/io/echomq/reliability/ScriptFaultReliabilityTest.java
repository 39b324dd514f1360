package io.echomq.reliability;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.faults.CrashableValkey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 7: the script cache emptied under load ({@code SCRIPT FLUSH}: clients get NOSCRIPT and
 * send the script again), alternating with a slow script from another client that holds the
 * server past {@code busy-reply-threshold}, so every other command is answered BUSY for two
 * seconds. The workers survive both and finish; nothing lost, nothing applied twice. The server
 * is this test's own: both faults act on the whole server.
 */
@WithRealServices
class ScriptFaultReliabilityTest {

    private static final int JOBS = ReliabilitySize.pick(1_000, 10_000);
    private static final int FAULTS = ReliabilitySize.pick(4, 12);
    private static final Duration SPREAD = Duration.ofSeconds(ReliabilitySize.pick(10, 60));
    private static final long BUSY_MICROS = 2_000_000;
    /** Spins on the server clock until BUSY_MICROS passed: the server can do nothing else meanwhile. */
    private static final String SLOW_SCRIPT = """
            local t0 = redis.call('TIME')
            while true do
              local t = redis.call('TIME')
              if (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) > tonumber(ARGV[1]) then return 1 end
            end""";

    @Test
    void workersSurviveAFlushedScriptCacheAndABusyServer(PostgresService postgres) throws Exception {
        PostgresService.Database database = Scenarios.migratedDatabase(postgres, "script_faults");
        String queueName = "script-faults";
        try (CrashableValkey valkey = CrashableValkey.start("--busy-reply-threshold", "100");
             RedisClient redis = valkey.newClient();
             WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, Map.of("ECHOMQ_WORKER_LEASE_MS", "5000"),
                     Scenarios.output("script-faults"))) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            worker.awaitLine("event=started", Scenarios.WORKER_START);
            AtomicInteger faults = new AtomicInteger();
            FaultedLoad.run("script-flush-and-busy", queue, queueName, Jdbi.create(database.dataSource()), List.of(),
                            JOBS, SPREAD, FAULTS, () -> {
                                if (faults.getAndIncrement() % 2 == 0) {
                                    redis.scriptFlush();
                                } else {
                                    runSlowScript(valkey);
                                }
                            })
                    .print()
                    .assertNothingLostNothingTwice();
        }
    }

    /** From a connection of its own, with a read timeout longer than the script. */
    private static void runSlowScript(CrashableValkey valkey) {
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .password(valkey.password().orElseThrow()).socketTimeoutMillis(30_000).build();
        try (Jedis slow = new Jedis(new HostAndPort(valkey.host(), valkey.port()), config)) {
            slow.eval(SLOW_SCRIPT, 0, Long.toString(BUSY_MICROS));
        }
    }
}
