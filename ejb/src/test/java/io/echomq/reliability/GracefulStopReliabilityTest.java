package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 11: SIGTERM to a worker JVM in the middle of slow jobs. It stops claiming, lets the
 * running jobs finish within its grace period and exits; the next worker drains the rest.
 * Nothing lost, nothing applied twice.
 */
@WithRealServices
class GracefulStopReliabilityTest {

    private static final int JOBS = ReliabilitySize.pick(300, 3_000);
    private static final int FAULTS = ReliabilitySize.pick(2, 6);
    /** The standalone worker's grace for running jobs is 10 s; its JVM must be gone soon after. */
    private static final Duration EXIT_LIMIT = Duration.ofSeconds(20);

    @Test
    void aTerminatedWorkerFinishesOrReleasesItsJobsAndTheNextOneDrainsTheRest(ValkeyService valkey, PostgresService postgres)
            throws Exception {
        PostgresService.Database database = Scenarios.migratedDatabase(postgres, "sigterm");
        String queueName = "sigterm-" + ProcessHandle.current().pid();
        Map<String, String> slow = Map.of("ECHOMQ_WORKER_LEASE_MS", "2000", WorkerProcess.HANDLER, SlowLedgerHandler.class.getName());
        try (RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            List<String> acknowledged = new ArrayList<>();
            SubmissionLoad.burstPerSecond(queue, queueName, JOBS, acknowledged);

            long recoveryMs = 0;
            long inFlightAtSigterm = 0;
            long slowestExitMs = 0;
            for (int fault = 0; fault <= FAULTS; fault++) {
                try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, slow,
                        Scenarios.output("sigterm"))) {
                    worker.awaitLine("event=started", Scenarios.WORKER_START);
                    if (fault > 0) {
                        recoveryMs = Math.max(recoveryMs, ReliabilityChecker.recoveryMs(queue, queueName, System.nanoTime(),
                                Duration.ofMinutes(1)));
                    }
                    if (fault == FAULTS) {
                        ReliabilityChecker.awaitDrained(queue, queueName, JOBS, Duration.ofMinutes(3));
                        break;
                    }
                    worker.awaitLine("event=completed", Duration.ofSeconds(30));
                    Thread.sleep(1_000);
                    inFlightAtSigterm += queue.reads().stats(queueName).active();
                    long signalled = System.nanoTime();
                    assertThat(worker.terminate(EXIT_LIMIT)).as("the worker exits after SIGTERM").isTrue();
                    slowestExitMs = Math.max(slowestExitMs, (System.nanoTime() - signalled) / 1_000_000);
                }
            }

            Verdict verdict = ReliabilityChecker.check("worker-sigterm", FAULTS, recoveryMs, queue, queueName,
                            Jdbi.create(database.dataSource()), acknowledged)
                    .with("in_flight_at_sigterm", inFlightAtSigterm)
                    .with("exit_ms", slowestExitMs)
                    .print();
            verdict.assertNothingLostNothingTwice();
            assertThat(inFlightAtSigterm).as("jobs were running when the signal came").isPositive();
        }
    }
}
