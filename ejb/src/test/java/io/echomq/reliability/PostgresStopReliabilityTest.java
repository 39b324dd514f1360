package io.echomq.reliability;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.faults.CrashablePostgres;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 5: PostgreSQL stopped with {@code -m immediate} (SIGQUIT to the postmaster) under load
 * and restarted, again and again; and scenario 14, its negative control: the same run with the
 * effect store bypassed ({@link EffectStoreBypassingHandler}) must make the checker report
 * duplicate effects — proof that the checker can fail.
 *
 * <p>The other negative control the issue names, {@code synchronous_commit=off} on the server,
 * cannot fail: the effect transaction forces {@code synchronous_commit} on for itself.
 */
@WithRealServices
class PostgresStopReliabilityTest {

    private static final int JOBS = ReliabilitySize.pick(1_000, 10_000);
    private static final int FAULTS = ReliabilitySize.pick(3, 10);
    private static final Duration SPREAD = Duration.ofSeconds(ReliabilitySize.pick(8, 60));

    @Test
    void effectsSurviveImmediateStopsAndApplyOnce(ValkeyService valkey) throws Exception {
        stopPostgresUnderLoad("postgres-immediate-stop", Map.of(), valkey).assertNothingLostNothingTwice();
    }

    @Test
    void withTheEffectStoreBypassedTheCheckerReportsDuplicateEffects(ValkeyService valkey) throws Exception {
        stopPostgresUnderLoad("negative-control-effect-store-bypassed",
                Map.of(WorkerProcess.HANDLER, EffectStoreBypassingHandler.class.getName(), "ECHOMQ_WORKER_CONCURRENCY", "8"), valkey)
                .assertViolationDetected();
    }

    private static Verdict stopPostgresUnderLoad(String scenario, Map<String, String> workerSettings, ValkeyService valkey)
            throws Exception {
        String queueName = scenario + "-" + ProcessHandle.current().pid();
        Map<String, String> settings = new java.util.HashMap<>(workerSettings);
        settings.put("ECHOMQ_WORKER_LEASE_MS", "2000");
        try (CrashablePostgres postgres = CrashablePostgres.start(Map.of());
             RedisClient redis = valkey.newClient()) {
            PostgresService.Database database = Scenarios.migratedDatabase(postgres, "pg_stop");
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName,
                    settings, Scenarios.output(scenario))) {
                worker.awaitLine("event=started", Scenarios.WORKER_START);
                return FaultedLoad.run(scenario, queue, queueName, Jdbi.create(database.dataSource()), List.of(),
                                JOBS, SPREAD, FAULTS, () -> {
                                    postgres.stopImmediately();
                                    postgres.restart();
                                })
                        .print();
            }
        }
    }
}
