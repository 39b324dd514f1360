package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 10: poison among ordinary jobs. A job that always throws, and a job that halts the
 * worker's JVM ({@code Runtime.halt}) each time it runs, are dead-lettered at their max attempts;
 * the supervisor (this test) restarts the halted worker, and the restarts stop there: no crash
 * loop. The ordinary jobs are applied once each.
 */
@WithRealServices
class PoisonJobReliabilityTest {

    private static final int JOBS = ReliabilitySize.pick(300, 3_000);
    private static final int THROWING = 3;
    private static final int HALTING = 2;
    private static final int POISON_ATTEMPTS = 3;
    private static final Duration DEADLINE = Duration.ofMinutes(3);

    @Test
    void poisonJobsAreDeadLetteredAtMaxAttemptsAndTheWorkerStopsCrashing(ValkeyService valkey, PostgresService postgres)
            throws Exception {
        PostgresService.Database database = Scenarios.migratedDatabase(postgres, "poison");
        String queueName = "poison-" + ProcessHandle.current().pid();
        Map<String, String> settings = Map.of("ECHOMQ_WORKER_LEASE_MS", "1000", WorkerProcess.HANDLER, PoisonHandler.class.getName());
        try (RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            List<String> ordinary = new ArrayList<>();
            List<String> poison = new ArrayList<>();
            SubmissionLoad.burstPerSecond(queue, queueName, JOBS / 2, ordinary);
            for (int i = 0; i < THROWING + HALTING; i++) {
                String payload = i < THROWING ? PoisonHandler.THROWS : PoisonHandler.HALTS;
                poison.add(queue.submissions().enqueue(queueName, NewJob.of(payload).withMaxAttempts(POISON_ATTEMPTS)).id());
            }
            SubmissionLoad.burstPerSecond(queue, queueName, JOBS - JOBS / 2, ordinary);

            AtomicInteger restarts = new AtomicInteger();
            AtomicReference<WorkerProcess> worker = new AtomicReference<>(
                    WorkerProcess.start(valkey.url(), database, queueName, settings, Scenarios.output("poison")));
            try {
                // What a process supervisor does: a worker the poison took down is started again.
                await("queue drained, the worker restarted whenever the poison killed it").atMost(DEADLINE)
                        .pollInterval(Duration.ofMillis(100)).until(() -> {
                            if (!worker.get().isAlive()) {
                                restarts.incrementAndGet();
                                worker.set(WorkerProcess.start(valkey.url(), database, queueName, settings, Scenarios.output("poison")));
                            }
                            return drained(queue, queueName, ordinary.size() + poison.size());
                        });
                await("the worker runs on once the poison is dead-lettered").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                        .until(() -> worker.get().isAlive());
            } finally {
                worker.get().close();
            }

            Verdict verdict = ReliabilityChecker.check("poison-job", restarts.get(), 0, queue, queueName,
                            Jdbi.create(database.dataSource()), ordinary)
                    .with("poison_dead", poison.stream().filter(id -> state(queue, queueName, id) == JobState.DEAD).count())
                    .with("worker_restarts", restarts.get())
                    .print();
            verdict.assertNothingLostNothingTwice();
            for (String id : poison) {
                JobView job = queue.reads().job(queueName, id).orElseThrow();
                assertThat(job.state()).as("poison job %s", id).isEqualTo(JobState.DEAD);
                assertThat(job.attempts()).as("poison job %s ran its max attempts, no more", id).isEqualTo(POISON_ATTEMPTS);
            }
            assertThat(restarts.get()).as("each halting attempt cost one restart, no crash loop")
                    .isLessThanOrEqualTo(HALTING * POISON_ATTEMPTS);
        }
    }

    private static boolean drained(QueueClient queue, String queueName, long jobs) {
        var stats = queue.reads().stats(queueName);
        return stats.completed() + stats.dead() >= jobs;
    }

    private static JobState state(QueueClient queue, String queueName, String id) {
        return queue.reads().job(queueName, id).map(JobView::state).orElseThrow();
    }
}
