package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.Migrations;
import io.echomq.queue.JobEvent;
import io.echomq.queue.JobState;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The proof that a queue's limits hold across servers: two standalone worker JVMs (each the same
 * engine as the WAR, 8 threads each) with the same limits in their configuration (at most 4
 * active, at most 20 started per second, at most 2 active per lane), working 300 jobs of 50 ms
 * over 5 lanes. Then, from each job's history (claimed and settled, on the Valkey server's
 * clock): the most jobs active at once, in the queue and in one lane, and the most started in any
 * one-second window. Prints {@code limits: servers=2 cap=4 max_active_seen=N rate=20
 * max_started_per_window=N lane_cap=2 max_lane_active_seen=N}.
 */
@WithRealServices
class LimitsAcrossServersTest {

    private static final int SERVERS = 2;
    private static final int JOBS = 300;
    private static final int LANES = 5;
    private static final int CAP = 4;
    private static final int LANE_CAP = 2;
    private static final int RATE = 20;
    private static final Duration WINDOW = Duration.ofSeconds(1);

    @Test
    void twoServersKeepTheQueuesCapAndRateAndEachLanesCap(ValkeyService valkey, PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("limits");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        String queueName = "limits-" + ProcessHandle.current().pid();
        String at = "ECHOMQ_QUEUES_" + queueName.toUpperCase().replace('-', '_') + "_";
        Path logs = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "limits"));
        Map<String, String> settings = Map.of(
                WorkerProcess.HANDLER, PacedLedgerHandler.class.getName(),
                "ECHOMQ_WORKER_CONCURRENCY", "8",
                at + "MAX_ACTIVE", Integer.toString(CAP),
                at + "RATE_STARTS", Integer.toString(RATE),
                at + "RATE_WINDOW_MS", Long.toString(WINDOW.toMillis()),
                at + "LANE_MAX_ACTIVE", Integer.toString(LANE_CAP));

        try (RedisClient redis = valkey.newClient()) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            List<WorkerProcess> servers = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            try {
                for (int i = 0; i < SERVERS; i++) {
                    servers.add(WorkerProcess.start(valkey.url(), database, queueName, settings,
                            logs.resolve(queueName + "-server-" + i + ".log")));
                }
                for (WorkerProcess server : servers) {
                    server.awaitLine("event=started", Duration.ofSeconds(60));
                }
                assertThat(queue.reads().limits(queueName)).as("the limits from the servers' configuration")
                        .isEqualTo(QueueLimits.NONE.withMaxActive(CAP).withRate(RATE, WINDOW).withLaneMaxActive(LANE_CAP));
                for (int i = 0; i < JOBS; i++) {
                    ids.add(queue.submissions().enqueue(queueName, NewJob.of("{\"account\":\"lane-" + i % LANES + "\",\"amountCents\":1}")
                            .inLane("lane-" + i % LANES)).id());
                }
                awaitAllCompleted(queue, queueName, ids, Duration.ofSeconds(JOBS / RATE + 60));
            } finally {
                for (WorkerProcess server : servers) {
                    server.close();
                }
            }

            List<long[]> intervals = new ArrayList<>();
            Map<String, List<long[]>> byLane = new HashMap<>();
            List<Long> starts = new ArrayList<>();
            Set<String> workers = new HashSet<>();
            for (String id : ids) {
                String lane = queue.reads().job(queueName, id).orElseThrow().lane();
                long claimed = -1;
                for (JobEvent e : queue.reads().history(queueName, id)) {
                    if (e.event().equals("claimed")) {
                        claimed = e.at().toEpochMilli();
                        starts.add(claimed);
                        e.worker().ifPresent(workers::add);
                    } else if (claimed >= 0 && List.of("completed", "retried", "reaped", "dead").contains(e.event())) {
                        long[] interval = {claimed, e.at().toEpochMilli()};
                        intervals.add(interval);
                        byLane.computeIfAbsent(lane, l -> new ArrayList<>()).add(interval);
                        claimed = -1;
                    }
                }
            }
            int maxActive = mostAtOnce(intervals);
            int maxLaneActive = byLane.values().stream().mapToInt(LimitsAcrossServersTest::mostAtOnce).max().orElse(0);
            int maxStarted = mostWithin(starts, WINDOW.toMillis());
            System.out.println("limits: servers=" + SERVERS + " cap=" + CAP + " max_active_seen=" + maxActive + " rate=" + RATE
                    + " max_started_per_window=" + maxStarted + " lane_cap=" + LANE_CAP + " max_lane_active_seen=" + maxLaneActive);

            assertThat(intervals).as("every job ran once to its end").hasSize(JOBS);
            assertThat(workers).as("both servers claimed jobs").hasSize(SERVERS);
            assertThat(maxActive).as("jobs active at once, across both servers").isLessThanOrEqualTo(CAP);
            assertThat(maxStarted).as("jobs started in any window of " + WINDOW.toMillis() + " ms").isLessThanOrEqualTo(RATE);
            assertThat(maxLaneActive).as("jobs of one lane active at once").isLessThanOrEqualTo(LANE_CAP);
        }
    }

    private static void awaitAllCompleted(QueueClient queue, String queueName, List<String> ids, Duration timeout) {
        await("all " + ids.size() + " jobs completed").atMost(timeout).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            QueueStats stats = queue.reads().stats(queueName);
            assertThat(stats.completed()).as("completed: %s", stats).isGreaterThanOrEqualTo(ids.size());
        });
        assertThat(queue.reads().job(queueName, ids.get(0)).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    /** The most intervals open at one moment; one that ends at t is closed before one that starts at t (a settle-and-claim). */
    static int mostAtOnce(List<long[]> intervals) {
        List<long[]> edges = new ArrayList<>();
        for (long[] interval : intervals) {
            edges.add(new long[] {interval[0], +1});
            edges.add(new long[] {interval[1], -1});
        }
        edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int open = 0;
        int most = 0;
        for (long[] edge : edges) {
            open += (int) edge[1];
            most = Math.max(most, open);
        }
        return most;
    }

    /** The most starts in any window (t - window, t]. */
    static int mostWithin(List<Long> starts, long window) {
        List<Long> sorted = new ArrayList<>(starts);
        Collections.sort(sorted);
        int most = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (sorted.get(from) <= sorted.get(to) - window) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most;
    }
}
