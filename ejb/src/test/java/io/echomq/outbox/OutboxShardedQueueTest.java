package io.echomq.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.api.FlowRequest;
import io.echomq.api.JobRequest;
import io.echomq.effect.Migrations;
import io.echomq.queue.Enqueued;
import io.echomq.queue.FlowChild;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.shard.QueueShards;
import io.echomq.queue.shard.ShardLanes;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.faults.FaultyDataSources;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * The outbox into a queue of three shards on the testkit's 3-master Valkey Cluster
 * (docs/SHARDING.md, "What is built", item 6): a relayed row's job is made once, on the shard a
 * submission of it would reach, under an id naming that shard, and a row sent again after its relay
 * died finds that one job, wherever its key's owner is.
 */
@WithRealServices
class OutboxShardedQueueTest {

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();
    private static final QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT);

    private String sharded;
    private String plain;
    private QueueShards shards;
    private ShardLayout layout;
    private DataSource database;

    @BeforeEach
    void freshQueues(PostgresService postgres) {
        sharded = "outbox-sharded-" + UUID.randomUUID();
        plain = "outbox-plain-" + UUID.randomUUID();
        shards = QueueShards.connect(redis, client, ReplicaWait.NONE, Map.of(sharded, 3, plain, 1));
        layout = shards.sharded(sharded).orElseThrow().layout();
        database = postgres.createDatabase("outboxshards").dataSource();
        Migrations.migrate(database);
    }

    private OutboxRelay relay(DataSource source) {
        return OutboxRelay.idle("test/" + sharded, source, shards.outboxDoor(), client.outboxAdmin(), Duration.ofSeconds(1),
                OutboxRelay.RetryPolicy.DEFAULT);
    }

    /** A follow-up's request into the sharded queue, keyed as {@code JobContext.followUp} keys it. */
    private JobRequest followUp(String step, String lane) {
        JobRequest request = JobRequest.of(sharded, "{\"step\":\"" + step + "\"}").withIdempotencyKey(followUpKey(step));
        return lane == null ? request : request.withLane(lane);
    }

    private static String followUpKey(String step) {
        return "followup:orders:7:1764979200000:" + step;
    }

    /** A lane of the sharded queue on {@code shard}. */
    private String laneOn(int shard) {
        return ShardLanes.firstOn(layout, shard);
    }

    /** A follow-up step whose key's owner shard is, or is not, the given one. */
    private String stepWhoseKeyOwner(IntPredicate owner) {
        return IntStream.range(0, 1_000).mapToObj(i -> "step-" + i).filter(step -> owner.test(layout.ownerOfKey(followUpKey(step))))
                .findFirst().orElseThrow();
    }

    private List<JobView> jobsOnShard(int shard) {
        List<JobView> jobs = new ArrayList<>();
        for (JobState state : List.of(JobState.PENDING, JobState.DELAYED)) {
            jobs.addAll(shards.partsOf(sharded).get(shard).reads().jobs(sharded, state, Optional.empty(), 100).jobs());
        }
        return jobs;
    }

    private long outboxRows() {
        return Jdbi.create(database).withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.outbox").mapTo(Long.class).one());
    }

    private void write(Outbox outbox, JobRequest... requests) throws Exception {
        try (Connection transaction = database.getConnection()) {
            for (JobRequest request : requests) {
                outbox.write(transaction, request);
            }
        }
    }

    @Test
    void aFollowUpIntoAShardedQueueIsMadeOnceOnItsLanesShardUnderAnIdNamingThatShard() throws Exception {
        try (OutboxRelay relay = relay(database)) {
            Outbox outbox = Outbox.relayedBy(relay).over(shards);
            for (int shard = 0; shard < 3; shard++) {
                write(outbox, followUp("on-" + shard, laneOn(shard)));
            }

            assertThat(relay.sweep()).isEqualTo(new OutboxRelay.Sweep(3, 0, false));
        }

        assertThat(outboxRows()).isZero();
        assertThat(shards.stats(sharded).total()).as("jobs of the sharded queue").isEqualTo(3);
        for (int shard = 0; shard < 3; shard++) {
            int on = shard;
            assertThat(jobsOnShard(shard)).as("jobs on shard %d", shard).singleElement().satisfies(job -> {
                assertThat(job.lane()).isEqualTo(laneOn(on));
                assertThat(layout.shardOfJob(job.id())).as("the shard job %s names", job.id()).isEqualTo(on);
                assertThat(job.idempotencyKey()).contains(followUpKey("on-" + on));
            });
        }
    }

    @Test
    void aRelayThatDiesBeforeDeletingItsRowsResendsThemAndMakesNoSecondJobWhereverTheirKeysAreOwned() throws Exception {
        int laneShard = 1;
        String lane = laneOn(laneShard);
        String ownedByTheLanesShard = stepWhoseKeyOwner(owner -> owner == laneShard);
        String ownedByAnotherShard = stepWhoseKeyOwner(owner -> owner != laneShard);
        String laneless = "laneless";
        try (OutboxRelay writers = relay(database)) {
            write(Outbox.relayedBy(writers).over(shards), followUp(ownedByTheLanesShard, lane), followUp(ownedByAnotherShard, lane),
                    followUp(laneless, null));
        }

        // The first relay makes every job, then its DELETE fails: its transaction rolls back and the
        // rows stay, exactly as if it had died before committing.
        try (OutboxRelay dying = relay(FaultyDataSources.refusingDeletes(database))) {
            assertThatThrownBy(dying::sweep).hasMessageContaining("DELETE refused");
        }
        assertThat(outboxRows()).isEqualTo(3);
        assertThat(shards.stats(sharded).total()).as("jobs after the first relay").isEqualTo(3);

        try (OutboxRelay next = relay(database)) {
            assertThat(next.sweep().relayed()).isEqualTo(3);
        }

        assertThat(outboxRows()).isZero();
        assertThat(shards.stats(sharded).total()).as("jobs after the resend: each row's key answered its first job").isEqualTo(3);
        assertThat(jobsOnShard(laneShard)).as("the lane's jobs, both on its shard").filteredOn(job -> job.lane().equals(lane))
                .extracting(job -> job.idempotencyKey().orElseThrow())
                .containsExactlyInAnyOrder(followUpKey(ownedByTheLanesShard), followUpKey(ownedByAnotherShard));
        int owner = layout.ownerOfKey(followUpKey(laneless));
        assertThat(jobsOnShard(owner)).as("the laneless job, on its key's owner")
                .anySatisfy(job -> assertThat(job.idempotencyKey()).contains(followUpKey(laneless)));
        List<String> keys = new ArrayList<>();
        for (int shard = 0; shard < 3; shard++) {
            for (JobView job : jobsOnShard(shard)) {
                assertThat(layout.shardOfJob(job.id())).as("the shard job %s names", job.id()).isEqualTo(shard);
                keys.add(job.idempotencyKey().orElseThrow());
            }
        }
        assertThat(keys).as("keys of the jobs over every shard: one job each")
                .containsExactlyInAnyOrder(followUpKey(ownedByTheLanesShard), followUpKey(ownedByAnotherShard), followUpKey(laneless));
    }

    @Test
    void aSubmitterOfAShardedQueueStillCannotTakeAKeyOnlyTheOutboxsDoorAdmits() {
        String lane = laneOn(2);
        String followUp = followUpKey(stepWhoseKeyOwner(owner -> owner != 2));
        String row = OutboxRelay.RELAY_KEY_PREFIX + UUID.randomUUID();
        for (String key : List.of(followUp, row)) {
            for (NewJob job : List.of(NewJob.of("mine").withIdempotencyKey(key).inLane(lane), NewJob.of("mine").withIdempotencyKey(key))) {
                assertThatThrownBy(() -> shards.enqueue(sharded, job)).as("%s in lane %s", key, job.lane())
                        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("idempotencyKey"));
                assertThatThrownBy(() -> shards.enqueueBatch(sharded, List.of(NewJob.of("a").withIdempotencyKey("a-" + key), job)))
                        .as("%s in a batch", key)
                        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("jobs[1].idempotencyKey"));
            }
        }
        assertThat(shards.stats(sharded).total()).as("jobs made by the refused submissions").isZero();

        // The outbox's door admits the key, and a second send answers the first job, from its home on another shard than the key's owner.
        Enqueued first = shards.outboxDoor().enqueue(sharded, NewJob.of("the follow-up").withIdempotencyKey(followUp).inLane(lane), "");
        Enqueued again = shards.outboxDoor().enqueue(sharded, NewJob.of("the follow-up").withIdempotencyKey(followUp).inLane(lane), "");
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(again.replayed()).isTrue();
        assertThat(layout.shardOfJob(first.id())).isEqualTo(2);
        assertThatThrownBy(() -> shards.enqueue(sharded, NewJob.of("mine").withIdempotencyKey(followUp).inLane(lane)))
                .as("the key, once the outbox's job holds it").isInstanceOf(InvalidRequestException.class);
        assertThat(shards.stats(sharded).total()).isEqualTo(1);
    }

    @Test
    void aFlowIntoAShardedQueueRelayedAgainAfterItsRelayDiedIsMadeOnceEachJobOnItsLanesShard() throws Exception {
        // No key of its own: the relay keys the root 'outbox:<row>', whose home is its lane's shard whoever owns the key.
        FlowRequest flow = FlowRequest.of(JobRequest.of(sharded, "{\"parent\":true}").withLane(laneOn(1)),
                FlowRequest.of(JobRequest.of(sharded, "{\"child\":0}").withLane(laneOn(0))),
                FlowRequest.of(JobRequest.of(sharded, "{\"child\":2}").withLane(laneOn(2))),
                FlowRequest.of(JobRequest.of(plain, "{\"child\":\"plain\"}")));
        OutboxWriter.insert(database, List.of(flow.job()), List.of(OutboxFlows.encodeChildren(flow)), "");

        try (OutboxRelay dying = relay(FaultyDataSources.refusingDeletes(database))) {
            assertThatThrownBy(dying::sweep).hasMessageContaining("DELETE refused");
        }
        assertThat(outboxRows()).as("the row its relay could not delete").isEqualTo(1);
        try (OutboxRelay relay = relay(database)) {
            assertThat(relay.sweep()).isEqualTo(new OutboxRelay.Sweep(1, 0, false));
        }

        assertThat(outboxRows()).isZero();
        assertThat(shards.stats(sharded).total()).as("the parent and two children, once").isEqualTo(3);
        assertThat(shards.stats(plain).total()).isEqualTo(1);
        List<JobView> waiting = shards.jobs(sharded, JobState.WAITING_CHILDREN, Optional.empty(), 10).jobs();
        assertThat(waiting).hasSize(1);
        JobView parent = waiting.get(0);
        assertThat(layout.shardOfJob(parent.id())).as("the parent on its lane's shard").isEqualTo(1);
        assertThat(parent.idempotencyKey()).hasValueSatisfying(key -> assertThat(key).startsWith("outbox:"));
        List<FlowChild> children = shards.children(sharded, parent.id());
        assertThat(children).hasSize(3).allSatisfy(child -> assertThat(child.jobId()).isPresent());
        assertThat(layout.shardOfJob(children.get(0).jobId().orElseThrow())).isEqualTo(0);
        assertThat(layout.shardOfJob(children.get(1).jobId().orElseThrow())).isEqualTo(2);
        assertThat(jobsOnShard(0)).extracting(JobView::id).containsExactly(children.get(0).jobId().orElseThrow());
        assertThat(jobsOnShard(2)).extracting(JobView::id).containsExactly(children.get(1).jobId().orElseThrow());
    }

    @Test
    void anOutboxWhoseRelayDoesNotRouteOverTheEnginesShardsRefusesAFollowUpIntoAShardedQueueAndWritesNothing() throws Exception {
        // A relay over the unsharded client alone would make the job on shard 0 under an id that names no shard.
        try (OutboxRelay unrouted = OutboxRelay.idle("test/unrouted", database, client.submissions().outboxDoor(), client.outboxAdmin(),
                Duration.ofSeconds(1))) {
            Outbox outbox = Outbox.relayedBy(unrouted).over(shards);
            assertThatThrownBy(() -> write(outbox, followUp("refused", laneOn(2))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("queue: '" + sharded + "' has 3 shards");
            write(outbox, JobRequest.of(plain, "{}"));
        }
        List<String> written = Jdbi.create(database).withHandle(h -> h.createQuery("SELECT queue FROM echomq.outbox").mapTo(String.class).list());
        assertThat(written).as("rows written").containsExactly(plain);
    }
}
