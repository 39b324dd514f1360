package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.Migrations;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.schedule.ScheduleView;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The proof of "exactly one job per schedule slot" across servers: three standalone worker JVMs
 * (each the same engine as the WAR) with one schedule in their configuration, firing every second
 * for about 25 s; one of them is killed with SIGKILL midway. Then, from the queue's jobs: every
 * slot between the first fired and the last has exactly one job (each job names its slot in its
 * idempotency key). Prints {@code schedule: servers=3 slots=N fired=N duplicates=0 missed=0}.
 */
@WithRealServices
class ScheduleAcrossServersTest {

    private static final int SERVERS = 3;
    private static final Duration RUN = Duration.ofSeconds(25);

    @Test
    void threeServersOneKilledFireEverySlotExactlyOnce(ValkeyService valkey, PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("schedules");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        String queueName = "sched-" + ProcessHandle.current().pid();
        Path logs = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "schedules"));
        Map<String, String> settings = Map.of(
                "ECHOMQ_SCHEDULES", "tick",
                "ECHOMQ_SCHEDULES_TICK_QUEUE", queueName,
                "ECHOMQ_SCHEDULES_TICK_INTERVAL_MS", "1000",
                "ECHOMQ_SCHEDULES_TICK_PAYLOAD", "{\"account\":\"scheduled\",\"amountCents\":1}",
                "ECHOMQ_SCHEDULES_TICK_MISFIRE", "run-each",
                "ECHOMQ_MAINTENANCE_INTERVAL_MS", "200",
                "ECHOMQ_WORKER_CONCURRENCY", "1");

        List<WorkerProcess> servers = new ArrayList<>();
        try (RedisClient redis = valkey.newClient()) {
            try {
                for (int i = 0; i < SERVERS; i++) {
                    servers.add(WorkerProcess.start(valkey.url(), database, queueName, settings,
                            logs.resolve(queueName + "-server-" + i + ".log")));
                }
                for (WorkerProcess server : servers) {
                    server.awaitLine("event=started", Duration.ofSeconds(60));
                }
                Thread.sleep(RUN.toMillis() / 2);
                servers.get(1).killHard();   // SIGKILL mid-run: the two others go on firing
                Thread.sleep(RUN.toMillis() / 2);
            } finally {
                for (WorkerProcess server : servers) {
                    server.close();
                }
            }

            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            ScheduleView schedule = queue.schedules().get(queueName, "tick").orElseThrow();
            String prefix = "echomq:{" + queueName + "}:";
            long seq = Long.parseLong(redis.get(prefix + "seq"));
            TreeMap<Long, Integer> jobsPerSlot = new TreeMap<>();
            for (long id = 1; id <= seq; id++) {
                String idem = redis.hget(prefix + "job:" + id, "idem");
                assertThat(idem).as("job %d was made by the schedule", id).startsWith("schedule:tick:");
                jobsPerSlot.merge(Long.parseLong(idem.substring("schedule:tick:".length())), 1, Integer::sum);
            }
            long first = jobsPerSlot.firstKey();
            long last = jobsPerSlot.lastKey();
            long slots = (last - first) / 1000 + 1;
            long duplicates = jobsPerSlot.values().stream().mapToLong(n -> n - 1).sum();
            long missed = 0;
            for (long slot = first; slot <= last; slot += 1000) {
                if (!jobsPerSlot.containsKey(slot)) {
                    missed++;
                }
            }
            long fired = seq;
            System.out.println("schedule: servers=" + SERVERS + " slots=" + slots + " fired=" + fired + " duplicates=" + duplicates
                    + " missed=" + missed);
            assertThat(duplicates).as("slots with more than one job").isZero();
            assertThat(missed).as("slots between the first and the last without a job").isZero();
            assertThat(jobsPerSlot.keySet()).allSatisfy(slot -> assertThat(slot % 1000).isZero());
            assertThat(slots).as("about one slot a second while the servers ran").isGreaterThanOrEqualTo(RUN.toSeconds() - 5);
            assertThat(schedule.fired()).isEqualTo(fired);
            assertThat(schedule.skipped()).as("nothing missed while a server ran").isZero();
        }
    }
}
