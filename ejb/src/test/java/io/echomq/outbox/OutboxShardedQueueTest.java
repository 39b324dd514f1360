package io.echomq.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.api.JobRequest;
import io.echomq.effect.Migrations;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.shard.QueueShards;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.WithRealServices;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * Until the outbox relay is routed over shards, a follow-up into a sharded queue is refused in the
 * handler's transaction, naming {@code queue}, rather than relayed to shard 0 under an id that
 * names no shard (docs/SHARDING.md, "What is built, and what remains", item 6).
 */
@WithRealServices
class OutboxShardedQueueTest {

    @Test
    void aFollowUpIntoAShardedQueueIsRefusedNamingTheQueueAndNothingIsWritten(PostgresService postgres) throws Exception {
        String sharded = "outbox-sharded-" + UUID.randomUUID();
        String plain = "outbox-plain-" + UUID.randomUUID();
        DataSource database = postgres.createDatabase("outboxshards").dataSource();
        Migrations.migrate(database);
        try (RedisClusterClient redis = RealServices.valkeyCluster().newClient()) {
            QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT);
            QueueShards shards = QueueShards.connect(redis, client, ReplicaWait.NONE, Map.of(sharded, 3, plain, 1));
            OutboxRelay relay = OutboxRelay.idle("test/shards", database, client.submissions(), client.outboxAdmin(), Duration.ofSeconds(1));
            Outbox outbox = Outbox.relayedBy(client.submissions(), relay).over(shards);
            try (Connection transaction = database.getConnection()) {
                assertThatThrownBy(() -> outbox.write(transaction, JobRequest.of(sharded, "{}")))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("queue: '" + sharded + "' has 3 shards");
                outbox.write(transaction, JobRequest.of(plain, "{}"));
            } finally {
                relay.close();
            }
        }
        List<String> written = Jdbi.create(database).withHandle(h -> h.createQuery("SELECT queue FROM echomq.outbox").mapTo(String.class).list());
        assertThat(written).as("rows written").containsExactly(plain);
    }
}
