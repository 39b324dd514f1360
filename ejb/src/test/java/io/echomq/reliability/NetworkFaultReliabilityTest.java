package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.faults.FaultProxy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 6: a worker whose connections to Valkey and to PostgreSQL run through loopback fault
 * proxies ({@link FaultProxy}): each connection frozen for three seconds, cut, and slowed, in
 * turn, and one PostgreSQL connection cut right after it sent COMMIT, so the worker cannot know
 * whether its effect committed (it had; the retry finds it applied). Nothing lost, nothing twice.
 */
@WithRealServices
class NetworkFaultReliabilityTest {

    private static final int JOBS = ReliabilitySize.pick(1_000, 10_000);
    private static final int ROUNDS = ReliabilitySize.pick(1, 4);
    /** Long enough that submissions still run when the last fault (about 5 s each, with its pause) comes. */
    private static final Duration SPREAD = Duration.ofSeconds(ReliabilitySize.pick(36, 240));
    private static final Duration FAULT_LENGTH = Duration.ofSeconds(3);
    private static final String LOOPBACK = "127.0.0.1";

    @Test
    void frozenCutAndSlowConnectionsAndACutDuringCommitLoseNothingAndApplyOnce(ValkeyService valkey, PostgresService postgres)
            throws Exception {
        PostgresService.Database database = Scenarios.migratedDatabase(postgres, "network_faults");
        String queueName = "network-faults-" + ProcessHandle.current().pid();
        int postgresPort = URI.create(database.jdbcUrl().substring("jdbc:".length())).getPort();
        try (FaultProxy toValkey = FaultProxy.to(LOOPBACK, valkey.port());
             FaultProxy toPostgres = FaultProxy.to(LOOPBACK, postgresPort);
             RedisClient redis = valkey.newClient()) {
            PostgresService.Database proxied = new PostgresService.Database(database.name(),
                    // No server-side prepared statements, so every COMMIT travels as text the proxy can see.
                    database.jdbcUrl().replace(LOOPBACK + ":" + postgresPort, LOOPBACK + ":" + toPostgres.port())
                            + (database.jdbcUrl().contains("?") ? "&" : "?") + "prepareThreshold=0",
                    database.user(), database.password());
            String proxiedValkey = valkey.url().replace(LOOPBACK + ":" + valkey.port(), LOOPBACK + ":" + toValkey.port());
            List<FaultedLoad.Fault> faults = List.of(
                    () -> cutDuringCommit(toPostgres),
                    () -> frozen(toValkey), toValkey::cut, () -> slowed(toValkey),
                    () -> frozen(toPostgres), toPostgres::cut, () -> slowed(toPostgres));
            AtomicInteger next = new AtomicInteger();
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            try (WorkerProcess worker = WorkerProcess.start(proxiedValkey, proxied, queueName, Map.of("ECHOMQ_WORKER_LEASE_MS", "2000"),
                    Scenarios.output("network-faults"))) {
                worker.awaitLine("event=started", Scenarios.WORKER_START);
                Verdict verdict = FaultedLoad.run("network-freeze-cut-slow", queue, queueName, Jdbi.create(database.dataSource()),
                                List.of(), JOBS, SPREAD, faults.size() * ROUNDS,
                                () -> faults.get(next.getAndIncrement() % faults.size()).inject())
                        .with("commit_cuts", toPostgres.markerCuts())
                        .print();
                verdict.assertNothingLostNothingTwice();
                assertThat(toPostgres.markerCuts()).as("a connection was cut right after sending COMMIT").isEqualTo(ROUNDS);
            }
        }
    }

    private static void frozen(FaultProxy proxy) throws InterruptedException {
        proxy.freeze();
        Thread.sleep(FAULT_LENGTH.toMillis());
        proxy.heal();
    }

    private static void slowed(FaultProxy proxy) throws InterruptedException {
        proxy.slow(20);
        Thread.sleep(FAULT_LENGTH.toMillis());
        proxy.heal();
    }

    private static void cutDuringCommit(FaultProxy proxy) {
        int before = proxy.markerCuts();
        proxy.cutAfterClientSends("COMMIT");
        try {
            await("the proxy cuts a connection after a COMMIT").atMost(Duration.ofSeconds(30))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).until(() -> proxy.markerCuts() > before);
        } finally {
            proxy.heal();
        }
    }
}
