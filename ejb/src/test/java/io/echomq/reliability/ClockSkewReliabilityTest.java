package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.JobEvent;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueReads;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.services.ExecutableOnPath;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Scenario 8: two worker JVMs whose wall clocks are an hour ahead and an hour behind
 * ({@code faketime}, monotonic time left alone), sharing one queue with a short lease. Leases,
 * reaping and backoff are computed from the Valkey server's clock, so every lease runs its
 * length on that clock whichever worker took it, and every job's effect is applied once. Needs the Debian {@code faketime}
 * package ({@code .ci/run} installs it); without it the test fails, it never skips.
 */
@WithRealServices
class ClockSkewReliabilityTest {

    private static final int JOBS = ReliabilitySize.pick(600, 6_000);
    private static final List<String> SKEWS = List.of("-1h", "+1h");
    private static final Duration LEASE = Duration.ofSeconds(10);
    /**
     * Under faketime every clock read is a call into libfaketime instead of the vDSO (a loop of
     * System.currentTimeMillis runs about five times slower here), so a JVM starts several times
     * slower than without, and far slower on a busy machine: both workers start at once, and are
     * given longer than a plain worker.
     */
    private static final Duration FAKED_WORKER_START = Scenarios.WORKER_START.multipliedBy(3);

    @Test
    void workersAnHourAheadAndAnHourBehindKeepTheirLeasesBecauseLeasesUseTheServerClock(ValkeyService valkey,
            PostgresService postgres) throws Exception {
        Path faketime = ExecutableOnPath.find("faketime").orElseThrow(() -> new AssertionError(
                "the faketime command is needed for the clock-skew scenario: apt-get install faketime (.ci/run does)"));
        PostgresService.Database database = Scenarios.migratedDatabase(postgres, "clock_skew");
        String queueName = "clock-skew-" + ProcessHandle.current().pid();
        // Long enough for a first batch in a JVM slowed by faketime (its every clock read is intercepted); a lease
        // computed from the skewed clock would be an hour off either way.
        // NO_FAKE_STAT: file times are not what is skewed here, and faking them adds a call to every stat of a JVM's start.
        Map<String, String> settings = Map.of("ECHOMQ_WORKER_LEASE_MS", Long.toString(LEASE.toMillis()), "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                "NO_FAKE_STAT", "1");
        List<WorkerProcess> workers = new ArrayList<>();
        try (RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            // One after the other: two faked JVMs starting at once on two cores beside the test's own
            // took over 3 minutes (in CI the second was still loading Flyway's classes at 189 s).
            for (String skew : SKEWS) {
                WorkerProcess worker = WorkerProcess.start(List.of(faketime.toString(), "-f", skew), valkey.url(), database, queueName,
                        settings, Scenarios.output("clock-skew" + skew));
                workers.add(worker);
                worker.awaitLine("event=started", FAKED_WORKER_START);
                assertThat(worker.jvm().map(ClockSkewReliabilityTest::environment).orElse(""))
                        .as("worker pid %d runs under faketime", worker.pid()).contains("FAKETIME=" + skew);
            }
            List<String> acknowledged = new ArrayList<>();
            SubmissionLoad.burstPerSecond(queue, queueName, JOBS, acknowledged);
            ReliabilityChecker.awaitDrained(queue, queueName, JOBS, Duration.ofMinutes(3));

            Verdict verdict = ReliabilityChecker.check("worker-clock-skew-1h", SKEWS.size(), 0, queue, queueName,
                            Jdbi.create(database.dataSource()), acknowledged)
                    .with("skews", String.join(",", SKEWS))
                    .print();
            verdict.assertNothingLostNothingTwice();
            assertEveryLeaseRanItsLengthOnTheServerClock(queue.reads(), queueName, acknowledged);
        } finally {
            for (WorkerProcess worker : workers) {
                worker.close();
            }
        }
    }

    /**
     * Each lease a worker took or renewed ends {@link #LEASE} after the server's clock granted it,
     * and no job was taken back sooner than that after its last grant. A deadline judged on the
     * worker hour behind would lie in the past when granted, and its jobs would be reaped at
     * once; the one ahead would hold them for an hour. A job delivered twice is allowed: a
     * worker stalled past its lease on a busy machine loses the lease honestly, on the server clock.
     */
    private static void assertEveryLeaseRanItsLengthOnTheServerClock(QueueReads reads, String queue, List<String> jobs) {
        for (String id : jobs) {
            Instant granted = null;
            for (JobEvent event : reads.history(queue, id)) {
                switch (event.event()) {
                    case "claimed", "extended" -> {
                        granted = event.at();
                        assertThat(Duration.between(granted, event.leaseUntil().orElseThrow()))
                                .as("job %s: the lease of its %s at %s", id, event.event(), granted).isEqualTo(LEASE);
                    }
                    case "reaped" -> assertThat(Duration.between(granted, event.at()))
                            .as("job %s: reaped at %s, a lease granted at %s", id, event.at(), granted)
                            .isGreaterThanOrEqualTo(LEASE);
                    default -> { }
                }
            }
        }
    }

    private static String environment(ProcessHandle process) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "environ")), StandardCharsets.UTF_8)
                    .replace('\0', '\n');
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
