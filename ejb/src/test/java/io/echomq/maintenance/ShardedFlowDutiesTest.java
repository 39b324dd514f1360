package io.echomq.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Backoff;
import io.echomq.queue.ChildFailure;
import io.echomq.queue.FailureKind;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.FlowChild;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.Flows;
import io.echomq.queue.JobState;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.shard.QueueShards;
import io.echomq.queue.shard.ShardLanes;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * Flows routed over the shards of a 3-shard queue on the 3-master cluster (docs/SHARDING.md, 3.4):
 * each job of a flow made on its lane's shard, every edge carried to the shard its job's id names,
 * and the relay and the repair, as maintenance runs them, walking every shard; a relay or repair
 * stopped between its steps and run again makes no second child and loses no edge.
 */
class ShardedFlowDutiesTest {

    private static final ValkeyCluster cluster = RealServices.valkeyCluster();
    private static final RedisClusterClient redis = cluster.sharedClient();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final String sharded = "shflow-" + UUID.randomUUID();
    private final String plain = "shflow-plain-" + UUID.randomUUID();
    private QueueShards shards;
    private ShardLayout layout;
    private Flows flows;

    @BeforeEach
    void connect() {
        shards = QueueShards.connect(redis, QueueClient.connect(redis, QueueSettings.DEFAULT), ReplicaWait.NONE, Map.of(sharded, 3));
        layout = shards.sharded(sharded).orElseThrow().layout();
        flows = shards.flows();
    }

    /** A lane of the sharded queue on {@code shard}. */
    private String laneOn(int shard) {
        return ShardLanes.firstOn(layout, shard);
    }

    private FlowRelay relay() {
        return new FlowRelay(flows, Duration.ofSeconds(5), 100);
    }

    private JobState stateOf(String queue, String id) {
        return shards.readsOf(queue, id).job(queue, id).orElseThrow().state();
    }

    /** Claims {@code count} jobs of {@code queue} over all its shards. */
    private List<ClaimedJob> claim(String queue, int count) {
        List<ClaimedJob> claimed = new ArrayList<>();
        for (int round = 0; round < 20 && claimed.size() < count; round++) {
            claimed.addAll(shards.sharded(queue).map(q -> q.leases().claim(queue, LEASE, count - claimed.size(), "w"))
                    .orElseGet(() -> shards.unsharded().leases().claim(queue, LEASE, count - claimed.size(), "w")));
        }
        assertThat(claimed).as("jobs claimed from %s", queue).hasSize(count);
        return claimed;
    }

    private List<String> childIds(FlowSubmitted parent) {
        return flows.children(parent.queue(), parent.id()).stream().map(child -> child.jobId().orElseThrow()).toList();
    }

    @Test
    void aFlowOverThreeShardsAndAQueueOfOneIsMadeOnEachJobsShardAndItsParentRunsOnceEveryChildSettled() {
        String parentLane = laneOn(1);
        List<String> childLanes = List.of(laneOn(0), laneOn(1), laneOn(2), NewJob.DEFAULT_LANE);
        List<NewFlow> children = new ArrayList<>(childLanes.stream().map(lane -> NewFlow.of(sharded, NewJob.of("c").inLane(lane))).toList());
        children.add(NewFlow.of(plain, NewJob.of("elsewhere")));

        FlowSubmitted parent = shards.submitFlow(NewFlow.of(sharded, NewJob.of("p").inLane(parentLane), children.toArray(NewFlow[]::new)));

        assertThat(parent.state()).isEqualTo(JobState.WAITING_CHILDREN);
        assertThat(layout.shardOfJob(parent.id())).as("the parent's shard, its lane's").isEqualTo(1);
        List<FlowChild> made = flows.children(sharded, parent.id());
        assertThat(made).hasSize(5).allSatisfy(child -> assertThat(child.jobId()).isPresent());
        for (int i = 0; i < 3; i++) {
            assertThat(layout.shardOfJob(made.get(i).jobId().orElseThrow())).as("child %d's shard, its lane's", i).isEqualTo(i);
        }
        String laneless = made.get(3).jobId().orElseThrow();
        assertThat(layout.shardOfJob(laneless)).as("a laneless child's shard: its key's owner")
                .isEqualTo(layout.ownerOfKey(Flows.childKey(sharded, parent.id(), parent.createdMs(), 3)));
        assertThat(shards.readsOf(plain, made.get(4).jobId().orElseThrow()).job(plain, made.get(4).jobId().orElseThrow())).isPresent();
        assertThat(shards.stats(sharded).total()).as("jobs of the sharded queue: the parent and four children").isEqualTo(5);

        claim(sharded, 4).forEach(job -> shards.leases(sharded).complete(job.lease()));
        assertThat(relay().runOnce(sharded).flowEdges()).as("four notices, on three shards").isEqualTo(4);
        assertThat(stateOf(sharded, parent.id())).as("one child still runs").isEqualTo(JobState.WAITING_CHILDREN);
        claim(plain, 1).forEach(job -> shards.leases(plain).complete(job.lease()));
        assertThat(relay().runOnce(plain).flowEdges()).isEqualTo(1);

        assertThat(stateOf(sharded, parent.id())).isEqualTo(JobState.PENDING);
        assertThat(flows.children(sharded, parent.id())).extracting(child -> child.outcome().orElse(null)).containsOnly("completed");
        assertThat(relay().runOnce(sharded).flowEdges() + relay().runOnce(plain).flowEdges()).as("every notice acknowledged").isZero();
        ClaimedJob ran = claim(sharded, 1).get(0);
        assertThat(ran.id()).isEqualTo(parent.id());
        assertThat(shards.leases(sharded).flowChildren(ran.lease())).as("the children the parent's handler reads, from its shard")
                .extracting(child -> child.jobId().orElseThrow()).containsExactlyElementsOf(childIds(parent));
    }

    @Test
    void aChildThatDiesOnAnotherShardFailsItsParentAndTheRelayCancelsItsSiblingsOnTheirShards() {
        FlowSubmitted parent = shards.submitFlow(NewFlow.of(sharded, NewJob.of("p").inLane(laneOn(0)),
                NewFlow.of(sharded, NewJob.of("dies").inLane(laneOn(2)).withMaxAttempts(1)),
                NewFlow.of(sharded, NewJob.of("waits").inLane(laneOn(1))),
                NewFlow.of(plain, NewJob.of("waits too"))));
        List<String> children = childIds(parent);
        ClaimedJob dying = claim(sharded, 2).stream().filter(job -> job.id().equals(children.get(0))).findFirst().orElseThrow();
        assertThat(shards.leases(sharded).retry(dying.lease(), "bad input", Backoff.NONE, FailureKind.PERMANENT))
                .isInstanceOf(RetryOutcome.DeadLettered.class);

        relay().runOnce(sharded);

        assertThat(stateOf(sharded, parent.id())).as("a fail-parent child died").isEqualTo(JobState.DEAD);
        assertThat(flows.childCancels(sharded, 10)).as("cancel lists carried").isEmpty();
        assertThat(stateOf(sharded, children.get(0))).isEqualTo(JobState.DEAD);
        assertThat(stateOf(plain, children.get(2))).as("the sibling in the queue of one shard").isEqualTo(JobState.CANCELLED);
        assertThat(shards.readsOf(sharded, children.get(1)).job(sharded, children.get(1)).orElseThrow().cancelRequestedAt())
                .as("the active sibling on shard 1 is asked to stop").isPresent();
    }

    @Test
    void anOperatorsCancelOfAParentCancelsItsChildrenOnEveryShard() {
        FlowSubmitted parent = shards.submitFlow(NewFlow.of(sharded, NewJob.of("p").inLane(laneOn(2)),
                NewFlow.of(sharded, NewJob.of("a").inLane(laneOn(0))),
                NewFlow.of(sharded, NewJob.of("b").inLane(laneOn(1))).onFailure(ChildFailure.DROP),
                NewFlow.of(plain, NewJob.of("c"))));
        List<String> children = childIds(parent);

        shards.adminOf(sharded, parent.id()).cancel(sharded, parent.id());
        relay().runOnce(sharded);

        assertThat(stateOf(sharded, parent.id())).isEqualTo(JobState.CANCELLED);
        assertThat(stateOf(sharded, children.get(0))).as("the child on shard 0").isEqualTo(JobState.CANCELLED);
        assertThat(stateOf(sharded, children.get(1))).as("the child on shard 1").isEqualTo(JobState.CANCELLED);
        assertThat(stateOf(plain, children.get(2))).as("the child in the queue of one shard").isEqualTo(JobState.CANCELLED);
        relay().runOnce(sharded);
        relay().runOnce(plain);
        assertThat(flows.notices(sharded, 10)).as("the cancelled children's notices, carried").isEmpty();
        assertThat(stateOf(sharded, parent.id())).as("late notices leave a cancelled parent as it is").isEqualTo(JobState.CANCELLED);
    }

    @Test
    void aRelayStoppedBetweenMarkingTheParentAndAcknowledgingMovesTheCountOnceWhenRunAgain() {
        FlowSubmitted parent = shards.submitFlow(NewFlow.of(sharded, NewJob.of("p").inLane(laneOn(0)),
                NewFlow.of(sharded, NewJob.of("a").inLane(laneOn(1))),
                NewFlow.of(sharded, NewJob.of("b").inLane(laneOn(2)))));
        String first = childIds(parent).get(0);
        ClaimedJob a = claim(sharded, 2).stream().filter(job -> job.id().equals(first)).findFirst().orElseThrow();
        shards.leases(sharded).complete(a.lease());
        Flows.Notice notice = flows.notices(sharded, 10).get(0);
        QueueKeys childShard = layout.keys(layout.shardOfJob(first));

        flows.apply(notice);
        redis.hset(childShard.notices(), notice.childId(), notice.text());   // as if the relay stopped before its acknowledgement

        assertThat(relay().runOnce(sharded).flowEdges()).as("the notice applied again").isEqualTo(1);
        assertThat(redis.hexists(childShard.notices(), first)).as("acknowledged on the child's shard").isFalse();
        assertThat(redis.hget(layout.keys(0).job(parent.id()), "flow_settled")).as("the parent's count, moved once").isEqualTo("1");
        assertThat(stateOf(sharded, parent.id())).isEqualTo(JobState.WAITING_CHILDREN);
    }

    @Test
    void theRepairMakesAChildLostOnItsShardOnceAndFindsAChildMadeButNotMarkedWithoutMakingASecond() {
        FlowSubmitted parent = shards.submitFlow(NewFlow.of(sharded, NewJob.of("p").inLane(laneOn(1)),
                NewFlow.of(sharded, NewJob.of("lost").inLane(laneOn(2))),
                NewFlow.of(sharded, NewJob.of("unmarked").inLane(laneOn(0)))));
        List<String> before = childIds(parent);
        QueueKeys parentShard = layout.keys(1);
        // Child 0's submitter stopped before making it; child 1's after making it and before marking it made.
        QueueKeys lostShard = layout.keys(2);
        redis.del(lostShard.job(before.get(0)));
        redis.zrem(lostShard.pending(laneOn(2)), before.get(0));
        redis.lrem(lostShard.ring(), 0, laneOn(2));
        redis.hdel(lostShard.idempotency(), Flows.childKey(sharded, parent.id(), parent.createdMs(), 0));
        redis.hdel(parentShard.flow(parent.id()), "child:0", "child:1");
        redis.hset(parentShard.job(parent.id()), "flow_created", "0");
        Clock late = Clock.fixed(Instant.ofEpochMilli(parent.createdMs() + 10_001), ZoneOffset.UTC);
        FlowRepair repair = new FlowRepair(flows, Duration.ofSeconds(1), Duration.ofSeconds(10), 10, late);

        assertThat(repair.runOnce(sharded).flowEdges()).as("children made or found and marked").isEqualTo(2);

        List<String> after = childIds(parent);
        assertThat(after.get(1)).as("the child made before is found, not made again").isEqualTo(before.get(1));
        assertThat(layout.shardOfJob(after.get(0))).as("the lost child made again on its lane's shard").isEqualTo(2);
        assertThat(shards.stats(sharded).total()).as("jobs: the parent and its two children").isEqualTo(3);
        assertThat(repair.runOnce(sharded).flowEdges()).as("nothing left to make").isZero();
        claim(sharded, 2).forEach(job -> shards.leases(sharded).complete(job.lease()));
        relay().runOnce(sharded);
        assertThat(stateOf(sharded, parent.id())).as("no edge lost").isEqualTo(JobState.PENDING);
    }

    @Test
    void aRootsKeyNamesOneFlowOverTheShardsFromAnyLaneAndAKeyHeldByAJobOnAnotherShardAnswersThatJob() {
        String key = "order-" + UUID.randomUUID();
        int owner = layout.ownerOfKey(key);
        NewFlow laneless = NewFlow.of(sharded, NewJob.of("p").withIdempotencyKey(key), NewFlow.of(sharded, NewJob.of("c").inLane(laneOn(0))));

        FlowSubmitted first = shards.submitFlow(laneless);
        FlowSubmitted again = shards.submitFlow(NewFlow.of(sharded, NewJob.of("p").inLane(laneOn(owner)).withIdempotencyKey(key),
                NewFlow.of(sharded, NewJob.of("c").inLane(laneOn(0)))));
        assertThat(redis.exists(layout.keys(owner).homeSeq())).as("the owner's shard made and answered the root with no key-home step")
                .isFalse();
        NewFlow elsewhere = NewFlow.of(sharded, NewJob.of("p").inLane(laneOn((owner + 1) % 3)).withIdempotencyKey(key),
                NewFlow.of(sharded, NewJob.of("c")));
        shards.checkFlow(elsewhere);
        FlowSubmitted fromElsewhere = shards.submitFlow(elsewhere);

        assertThat(layout.shardOfJob(first.id())).as("a laneless keyed root: its key's owner").isEqualTo(owner);
        assertThat(again.replayed()).as("the key sent again from a lane of the owner's shard").isTrue();
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(fromElsewhere.replayed()).as("the key sent again from a lane of another shard, through the key homes").isTrue();
        assertThat(fromElsewhere.id()).isEqualTo(first.id());

        String plainKey = IntStream.range(0, 100).mapToObj(i -> "plain-" + i + "-" + key).filter(k -> layout.ownerOfKey(k) != 2)
                .findFirst().orElseThrow();
        String made = shards.enqueue(sharded, NewJob.of("one job").inLane(laneOn(2)).withIdempotencyKey(plainKey)).id();
        FlowSubmitted answered = shards.submitFlow(NewFlow.of(sharded, NewJob.of("p").withIdempotencyKey(plainKey),
                NewFlow.of(sharded, NewJob.of("c"))));
        assertThat(answered.replayed()).as("a key whose home holds a job of one submission on another shard: that job, as on one shard")
                .isTrue();
        assertThat(answered.id()).isEqualTo(made);
        assertThat(answered.state()).isEqualTo(JobState.PENDING);
        assertThat(shards.stats(sharded).total()).as("the first flow's two jobs and the one job").isEqualTo(3);
        assertThat(layout.shardOfJob(made)).isEqualTo(2);
    }
}
