package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.api.JobRequest;
import io.echomq.effect.Migrations;
import io.echomq.outbox.OutboxRelay;
import io.echomq.outbox.OutboxWriter;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.WithRealServices;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.RedisClusterClient;

/**
 * An outbox relay into a queue of three shards stopped inside the key-home protocol
 * (docs/SHARDING.md, 3.1) of a follow-up whose key another shard owns than its lane's: the row
 * stays, and the next relay's resend completes the protocol with exactly one job for the key, on
 * the lane's shard.
 */
@WithRealServices
class OutboxKeyHomesClusterTest {

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();
    private static final QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT);

    /** A relay that stops (as a crash would) the first time it reaches {@code step}. */
    private record StopBefore(KeyHomes.Step step) implements KeyHomes.StepWatch {
        @Override
        public void before(KeyHomes.Step reached, int shard) {
            if (reached == step) {
                throw new IllegalStateException("the relay stopped before " + step);
            }
        }
    }

    /** A refused row is tried again at the next sweep, so the test need not wait out a backoff. */
    private static final OutboxRelay.RetryPolicy AT_ONCE = new OutboxRelay.RetryPolicy(10, Duration.ZERO, Duration.ZERO);

    @ParameterizedTest
    @EnumSource(value = KeyHomes.Step.class, names = {"CREATE", "CONFIRM"})
    void aRelayStoppedInsideTheKeyHomeStepsLeavesItsRowAndTheResendMakesOneJobOnTheLanesShard(KeyHomes.Step stop,
            PostgresService postgres) {
        ShardLayout layout = ShardLayout.of("outbox-khq-" + UUID.randomUUID(), 3);
        String lane = IntStream.range(0, 1_000).mapToObj(i -> "lane-" + i).filter(l -> layout.shardOfLane(l) == 1).findFirst().orElseThrow();
        String key = IntStream.range(0, 1_000).mapToObj(i -> "followup:orders:" + i + ":1764979200000:charge")
                .filter(k -> layout.ownerOfKey(k) == 0).findFirst().orElseThrow();
        DataSource database = postgres.createDatabase("outboxkeyhomes").dataSource();
        Migrations.migrate(database);
        insert(database, JobRequest.of(layout.queue(), "{\"charge\":1}").withLane(lane).withIdempotencyKey(key));

        ShardedQueue stopping = ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout, new StopBefore(stop));
        try (OutboxRelay first = relay(database, stopping)) {
            assertThat(first.sweep()).as("the sweep of the relay that stopped").isEqualTo(new OutboxRelay.Sweep(0, 1, false));
        }
        assertThat(rows(database)).as("rows left by the stopped relay").isEqualTo(1);

        try (OutboxRelay next = relay(database, ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout))) {
            assertThat(next.sweep().relayed()).isEqualTo(1);
        }

        assertThat(rows(database)).isZero();
        assertThat(KeyHomesClusterTest.shardsHolding(redis, layout, key)).as("shards holding a job of the follow-up's key").containsExactly(1);
    }

    @Test
    void theOutboxsDoorOfAShardedQueueRoutesAFollowUpWhoseKeyAnotherShardOwnsToItsLanesShard() {
        ShardLayout layout = ShardLayout.of("outbox-khq-" + UUID.randomUUID(), 3);
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout);
        String lane = IntStream.range(0, 1_000).mapToObj(i -> "lane-" + i).filter(l -> layout.shardOfLane(l) == 2).findFirst().orElseThrow();
        String key = IntStream.range(0, 1_000).mapToObj(i -> "outbox:" + i).filter(k -> layout.ownerOfKey(k) == 1).findFirst().orElseThrow();

        String id = queue.submissions().outboxDoor().enqueue(layout.queue(), NewJob.of("{}").inLane(lane)
                .withIdempotencyKey(key), "").id();

        assertThat(layout.shardOfJob(id)).isEqualTo(2);
        assertThat(KeyHomesClusterTest.shardsHolding(redis, layout, key)).containsExactly(2);
        assertThat(redis.hget(layout.keys(1).homes("idem"), key)).as("the key's home entry on its owner").startsWith("2:");
    }

    private static OutboxRelay relay(DataSource database, ShardedQueue queue) {
        return OutboxRelay.idle("test/outbox-key-homes", database, queue.submissions().outboxDoor(), client.outboxAdmin(),
                Duration.ofMinutes(1), AT_ONCE);
    }

    private static void insert(DataSource database, JobRequest request) {
        try {
            OutboxWriter.insert(database, List.of(request));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long rows(DataSource database) {
        return Jdbi.create(database).withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.outbox").mapTo(Long.class).one());
    }
}
