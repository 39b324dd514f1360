package io.echomq.reliability;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.faults.CrashableValkey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 4: Valkey killed with SIGKILL under load and restarted from its append-only file.
 * Every acknowledged submission is processed, once. Run with {@code appendfsync always} (the
 * documented zero-loss setting) and {@code everysec}, whose submission throughput is the price
 * comparison. A process kill keeps the kernel's page cache, so {@code everysec} loses nothing
 * here either; only a machine crash (power loss) tells the two apart.
 */
@WithRealServices
class ValkeyKillReliabilityTest {

    private static final int BURST = ReliabilitySize.pick(500, 5_000);
    private static final int JOBS = ReliabilitySize.pick(1_000, 10_000);
    private static final int FAULTS = ReliabilitySize.pick(3, 10);
    private static final Duration SPREAD = Duration.ofSeconds(ReliabilitySize.pick(8, 60));

    @Test
    void everyAcknowledgedSubmissionSurvivesKill9WithAppendfsyncAlways(PostgresService postgres) throws Exception {
        killValkeyUnderLoad("always", postgres).assertNothingLostNothingTwice();
    }

    @Test
    void everyAcknowledgedSubmissionSurvivesKill9WithAppendfsyncEverysec(PostgresService postgres) throws Exception {
        killValkeyUnderLoad("everysec", postgres).assertNothingLostNothingTwice();
    }

    private static Verdict killValkeyUnderLoad(String appendfsync, PostgresService postgres) throws Exception {
        PostgresService.Database database = Scenarios.migratedDatabase(postgres, "valkey_kill");
        String queueName = "valkey-kill";
        try (CrashableValkey valkey = CrashableValkey.start("--appendfsync", appendfsync);
             RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            List<String> acknowledged = new ArrayList<>();
            long submitPerSecond = SubmissionLoad.burstPerSecond(queue, queueName, BURST, acknowledged);
            try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName,
                    Map.of("ECHOMQ_WORKER_LEASE_MS", "2000"), Scenarios.output("valkey-kill-" + appendfsync))) {
                worker.awaitLine("event=started", Scenarios.WORKER_START);
                return FaultedLoad.run("valkey-kill-9-aof-" + appendfsync, queue, queueName, Jdbi.create(database.dataSource()),
                                acknowledged, JOBS, SPREAD, FAULTS, () -> {
                                    valkey.killHard();
                                    valkey.restart();
                                })
                        .with("submit_per_s", submitPerSecond)
                        .print();
            }
        }
    }
}
