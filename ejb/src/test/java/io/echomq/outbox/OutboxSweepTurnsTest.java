package io.echomq.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.api.JobRequest;
import io.echomq.effect.Migrations;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The relays of one outbox table take turns at their timed sweep (issue 39, V13): adding nodes
 * adds no sweeps of the shared table, and a row whose own node never relayed it is still relayed
 * by a timed sweep of one of them.
 */
@WithRealServices
class OutboxSweepTurnsTest {

    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private DataSource database;
    private RedisClient redis;
    private QueueClient queue;
    private String queueName;
    private final List<OutboxRelay> relays = new ArrayList<>();

    @BeforeEach
    void freshOutbox(PostgresService postgres, ValkeyService valkey) {
        database = postgres.createDatabase("sweepturns").dataSource();
        Migrations.migrate(database);
        redis = valkey.newClient();
        queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
        queueName = "sweep-turns-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void stop() {
        relays.forEach(OutboxRelay::close);
        redis.close();
    }

    @Test
    void threeRelaysTakingTurnsSweepAboutOncePerIntervalBetweenThemNotThreeTimes() throws InterruptedException {
        List<SweepTurns> nodes = List.of(new SweepTurns(database, INTERVAL), new SweepTurns(database, INTERVAL),
                new SweepTurns(database, INTERVAL));
        int taken = 0;
        int asked = 0;
        long start = System.nanoTime();
        Duration window = Duration.ofSeconds(2);
        // Each node comes far more often than its timer would (every 10 ms): only the turn limits the sweeps.
        while (System.nanoTime() - start < window.toNanos()) {
            for (SweepTurns node : nodes) {
                asked++;
                if (node.take()) {
                    taken++;
                }
            }
            Thread.sleep(10);
        }

        // The turn is spaced 90 ms: at most 2000 / 90 + 1 = 23 sweeps in the window over the three nodes.
        long intervals = window.toMillis() / (INTERVAL.toMillis() * 9 / 10);
        assertThat(taken).as("turns taken by 3 nodes asking %d times over %d ms", asked, window.toMillis())
                .isBetween((int) intervals / 2, (int) intervals + 1);
    }

    @Test
    void aRowNoRelayWasWokenForIsRelayedByTheTimedSweepOfOneOfThreeRelays() throws SQLException {
        for (int node = 0; node < 3; node++) {
            relays.add(OutboxRelay.start("test/" + queueName, database, queue.submissions().outboxDoor(), queue.outboxAdmin(), INTERVAL));
        }

        // Written and committed as a node that died before relaying it would leave it: nobody wakes a relay.
        OutboxWriter.insert(database, List.of(JobRequest.of(queueName, "{\"orphan\":true}")));

        await("the row relayed by a timed sweep").atMost(PATIENCE).until(() -> queue.reads().stats(queueName).pending() == 1);
        assertThat(queue.reads().stats(queueName).total()).isEqualTo(1);
    }
}
