package io.echomq.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.Migrations;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ServerClock;
import io.echomq.reliability.WorkerProcess;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The standalone worker is configured like the WAR: it reads the effect store's keys in their
 * environment form, so workers outside the server dedupe resubmissions by the same window.
 */
@WithRealServices
class StandaloneWorkerTest {

    private static final Duration WINDOW = Duration.ofSeconds(3);
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":100}";

    @Test
    void aWorkerGivenAnIdempotencyWindowSkipsAResubmissionInsideItAndAppliesOneAfterIt(ValkeyService valkey,
            PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("standalone");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        String queueName = "standalone-" + ProcessHandle.current().pid();
        Path output = Files.createTempFile("standalone-worker", ".log");

        try (RedisClient redis = valkey.newClient();
             WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName,
                     Map.of("ECHOMQ_IDEMPOTENCY_WINDOW_MS", Long.toString(WINDOW.toMillis())), output)) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            worker.awaitLine("event=started", DEADLINE);

            JobView first = runToCompletion(queue, queueName, "order-1");
            JobView insideWindow = runToCompletion(queue, queueName, "order-1");
            // Let the key's window pass since the first job was created (on the clock that stamps jobs), as after a long outage.
            ServerClock.of(redis, queueName).awaitReaching(first.createdAt().plus(WINDOW).toEpochMilli());
            JobView afterWindow = runToCompletion(queue, queueName, "order-1");

            assertThat(insideWindow.createdAt()).isBefore(first.createdAt().plus(WINDOW));
            assertThat(WorkerProcess.countLines(List.of(output), eventOf("applied", queueName, first))).isEqualTo(1);
            assertThat(WorkerProcess.countLines(List.of(output), eventOf("skipped", queueName, insideWindow))).isEqualTo(1);
            assertThat(WorkerProcess.countLines(List.of(output), eventOf("applied", queueName, afterWindow))).isEqualTo(1);
            assertThat(LedgerSummary.of(Jdbi.create(database.dataSource()), queueName).entries()).isEqualTo(2);
        }
    }

    @Test
    void aBadSettingStopsTheWorkerWithAMessageNamingIt(ValkeyService valkey, PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("standalone_bad");
        Path output = Files.createTempFile("standalone-worker", ".log");

        try (WorkerProcess worker = WorkerProcess.start(valkey.url(), database, "standalone-bad",
                Map.of("ECHOMQ_IDEMPOTENCY_WINDOW_MS", "1d"), output)) {
            assertThat(worker.awaitExit(DEADLINE)).as("the worker stops").isTrue();
            assertThat(worker.exitValue()).isEqualTo(2);
            assertThat(Files.readString(output))
                    .contains("EchoMQ configuration echomq.idempotency.window-ms (env ECHOMQ_IDEMPOTENCY_WINDOW_MS): "
                            + "must be a whole number, was '1d'")
                    .doesNotContain("event=started");
        }
    }

    /**
     * Submits a charge with {@code key}, waits for it to complete, then deletes it: Valkey forgets
     * the job and its key, so only the effect store can still tell a resubmission.
     */
    private static JobView runToCompletion(QueueClient queue, String queueName, String key) {
        Enqueued job = queue.submissions().enqueue(queueName, NewJob.of(CHARGE).withIdempotencyKey(key));
        assertThat(job.replayed()).as("Valkey knows no job with key " + key).isFalse();
        await("job " + job.id() + " completed").atMost(DEADLINE).until(
                () -> queue.reads().job(queueName, job.id()).map(view -> view.state() == JobState.COMPLETED).orElse(false));
        JobView view = queue.reads().job(queueName, job.id()).orElseThrow();
        queue.admin().remove(queueName, job.id());
        return view;
    }

    private static String eventOf(String event, String queueName, JobView job) {
        return "event=" + event + " queue=" + queueName + " job=" + job.id() + " attempt=1";
    }
}
