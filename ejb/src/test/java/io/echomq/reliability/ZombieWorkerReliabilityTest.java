package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.effect.EffectSettings;
import io.echomq.queue.JobEvent;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 2: a worker JVM frozen with SIGSTOP past its lease while it holds open PostgreSQL
 * transactions (its effect rows locked), then thawed with SIGCONT: a zombie. A second worker
 * takes over the reaped jobs; its attempts on the zombie's locked rows give up after
 * {@code lock_timeout} instead of hanging, and retry. The thawed zombie commits its effects and
 * its settlements are refused (fenced). Nothing lost, nothing applied twice.
 */
@WithRealServices
class ZombieWorkerReliabilityTest {

    private static final int JOBS = ReliabilitySize.pick(300, 3_000);
    private static final int FAULTS = ReliabilitySize.pick(1, 5);
    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration LOCK_TIMEOUT = EffectSettings.DEFAULT.lockTimeout();
    /** Past the lease and past the successor's lock timeout, short of idle_in_transaction_session_timeout. */
    private static final Duration FROZEN = LEASE.plus(LOCK_TIMEOUT).plusSeconds(3);
    private static final Duration MARGIN = Duration.ofSeconds(3);
    /** Longer than a worker's idle poll (200 ms), so both workers are polling when a fed job arrives. */
    private static final Duration FEED_INTERVAL = Duration.ofMillis(250);

    @Test
    void aFrozenWorkerHoldingTransactionsBlocksItsSuccessorNoLongerThanLockTimeoutAndCannotSettle(
            ValkeyService valkey, PostgresService postgres) throws Exception {
        PostgresService.Database database = Scenarios.migratedDatabase(postgres, "zombie");
        Jdbi jdbi = Jdbi.create(database.dataSource());
        String queueName = "zombie-" + ProcessHandle.current().pid();
        Map<String, String> lease = Map.of("ECHOMQ_WORKER_LEASE_MS", Long.toString(LEASE.toMillis()));
        Map<String, String> slow = Map.of("ECHOMQ_WORKER_LEASE_MS", Long.toString(LEASE.toMillis()),
                WorkerProcess.HANDLER, SlowLedgerHandler.class.getName());
        try (RedisClient redis = valkey.newClient();
             WorkerProcess zombie = WorkerProcess.start(valkey.url(), database, queueName, slow, Scenarios.output("zombie"));
             WorkerProcess successor = WorkerProcess.start(valkey.url(), database, queueName, lease, Scenarios.output("successor"))) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            zombie.awaitLine("event=started", Scenarios.WORKER_START);
            successor.awaitLine("event=started", Scenarios.WORKER_START);
            List<String> acknowledged = new ArrayList<>();
            long heldTransactions = 0;
            for (int fault = 0; fault < FAULTS; fault++) {
                SubmissionLoad.burstPerSecond(queue, queueName, JOBS / FAULTS, acknowledged);
                awaitSlowTransaction(jdbi, queue, queueName, acknowledged);
                zombie.pause();
                heldTransactions += await("the frozen zombie's transaction idles open").atMost(Duration.ofSeconds(10))
                        .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).until(() -> openTransactions(jdbi), n -> n > 0);
                Thread.sleep(FROZEN.toMillis());
                zombie.resume();
            }
            ReliabilityChecker.awaitDrained(queue, queueName, acknowledged.size(), Duration.ofMinutes(3));

            long maxBlockedMs = longestFailedAttemptMs(queue, queueName, acknowledged);
            Verdict verdict = ReliabilityChecker.check("worker-sigstop-zombie", FAULTS, maxBlockedMs, queue, queueName, jdbi, acknowledged)
                    .with("held_transactions", heldTransactions)
                    .with("lock_timeout_ms", LOCK_TIMEOUT.toMillis())
                    .print();
            verdict.assertNothingLostNothingTwice();
            assertThat(heldTransactions).as("the zombie was frozen holding open transactions").isPositive();
            assertThat(verdict.fenced()).as("the thawed zombie's settlements are refused").isPositive();
            assertThat(maxBlockedMs).as("a successor's attempt on a locked effect row gives up after lock_timeout")
                    .isLessThanOrEqualTo(LOCK_TIMEOUT.plus(MARGIN).toMillis());
        }
    }

    /**
     * Waits until the slow handler holds an effect transaction open (its sleep is running). The
     * successor may take a whole burst before the zombie's next poll (it claims again the moment
     * it finishes, the zombie only after its idle wait), so while waiting one more job goes in
     * now and then, for whichever worker polls first.
     */
    private static void awaitSlowTransaction(Jdbi jdbi, QueueClient queue, String queueName, List<String> acknowledged) {
        AtomicLong nextFeed = new AtomicLong(System.nanoTime() + FEED_INTERVAL.toNanos());
        await("the slow worker holds a transaction open").atMost(Duration.ofSeconds(30))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).until(() -> {
                    if (countActivity(jdbi, "state = 'active' AND query = '" + SlowLedgerHandler.SLOW_STATEMENT + "'") > 0) {
                        return true;
                    }
                    if (System.nanoTime() - nextFeed.get() >= 0) {
                        SubmissionLoad.burstPerSecond(queue, queueName, 1, acknowledged);
                        nextFeed.addAndGet(FEED_INTERVAL.toNanos());
                    }
                    return false;
                });
    }

    /** Transactions left open by a client that stopped talking: the frozen zombie's. */
    private static long openTransactions(Jdbi jdbi) {
        return countActivity(jdbi, "state = 'idle in transaction'");
    }

    private static long countActivity(Jdbi jdbi, String condition) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
                + condition).mapTo(Long.class).one());
    }

    /**
     * The longest attempt that ended in a retry, from its claim to its failure, on the server
     * clock: an attempt stuck behind the zombie's lock ends after lock_timeout, not later.
     */
    private static long longestFailedAttemptMs(QueueClient queue, String queueName, List<String> ids) {
        long longest = 0;
        for (String id : ids) {
            List<JobEvent> history = queue.reads().history(queueName, id);
            for (JobEvent retried : history) {
                if (!retried.event().equals("retried")) {
                    continue;
                }
                for (JobEvent claimed : history) {
                    if (claimed.event().equals("claimed") && claimed.attempt().equals(retried.attempt())) {
                        longest = Math.max(longest, Duration.between(claimed.at(), retried.at()).toMillis());
                    }
                }
            }
        }
        return longest;
    }
}
