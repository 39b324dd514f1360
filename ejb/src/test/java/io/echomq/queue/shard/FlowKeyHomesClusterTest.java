package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.JobState;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.internal.KeyHomeRedirect;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.testkit.RealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * A flow's root with its own idempotency key on a queue of three shards on the testkit's 3-master
 * Valkey Cluster (docs/SHARDING.md, 3.1 and 3.4): a root whose lane is on another shard than its
 * key's owner goes through the key homes as a submitted job does, so one root over the shards
 * holds the key whatever lanes its submissions name, and a client stopped inside the protocol is
 * repaired by its resend or by the sweeper, never leaving a second root.
 */
class FlowKeyHomesClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();
    private static final QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT);

    /** A queue of three shards, a key owned by shard 0, and lanes on shards 1 and 2 (and 0, the owner's). */
    private record Fixture(ShardLayout layout, String key, String laneA, String laneB, String ownersLane) {
        static Fixture make() {
            ShardLayout layout = ShardLayout.of("fkh-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet(), 3);
            String key = IntStream.range(0, 10_000).mapToObj(i -> "order-" + i).filter(k -> layout.ownerOfKey(k) == 0).findFirst().orElseThrow();
            return new Fixture(layout, key, ShardLanes.firstOn(layout, 1), ShardLanes.firstOn(layout, 2), ShardLanes.firstOn(layout, 0));
        }

        String queue() {
            return layout.queue();
        }

        /** Flows over this queue, its key-home steps watched by {@code watch}. */
        QueueShards shards(KeyHomes.StepWatch watch) {
            return QueueShards.of(client, ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout, watch));
        }

        /** The keyed root in {@code lane} with a child on shard 2 and a laneless one. */
        NewFlow flow(String lane) {
            return NewFlow.of(queue(), NewJob.of("p").inLane(lane).withIdempotencyKey(key),
                    NewFlow.of(queue(), NewJob.of("c").inLane(laneB)), NewFlow.of(queue(), NewJob.of("c")));
        }

        List<Integer> shardsHoldingTheKeysJob() {
            return KeyHomesClusterTest.shardsHolding(redis, layout, key);
        }

        String homeEntry() {
            return redis.hget(layout.keys(0).homes("idem"), key);
        }

        /** Each child of the root marked made on it, and the queue's jobs: the root and its two children, no more. */
        void assertOneFlow(QueueShards shards, FlowSubmitted root) {
            assertThat(shards.children(queue(), root.id())).as("the root's children, each made").hasSize(2)
                    .allSatisfy(child -> assertThat(child.jobId()).isPresent());
            assertThat(shards.stats(queue()).total()).as("jobs of the queue over its shards: one root and its two children").isEqualTo(3);
        }
    }

    @Test
    void aKeyedRootOnALaneOfAnotherShardThanItsKeysOwnerIsMadeOnceThereAndEveryResendAnswersIt() {
        Fixture f = Fixture.make();
        QueueShards shards = f.shards(KeyHomes.StepWatch.NONE);

        FlowSubmitted root = shards.submitFlow(f.flow(f.laneA()));
        FlowSubmitted again = shards.submitFlow(f.flow(f.laneA()));
        FlowSubmitted fromAThirdShard = shards.submitFlow(f.flow(f.laneB()));
        FlowSubmitted fromTheOwnersLane = shards.submitFlow(f.flow(f.ownersLane()));
        FlowSubmitted laneless = shards.submitFlow(NewFlow.of(f.queue(), NewJob.of("p").withIdempotencyKey(f.key()),
                NewFlow.of(f.queue(), NewJob.of("c"))));

        assertThat(root.replayed()).isFalse();
        assertThat(root.state()).isEqualTo(JobState.WAITING_CHILDREN);
        assertThat(f.layout().shardOfJob(root.id())).as("the root is on its lane's shard, not its key's owner").isEqualTo(1);
        assertThat(List.of(again, fromAThirdShard, fromTheOwnersLane, laneless)).as("every resend answers the first root")
                .allSatisfy(answer -> {
                    assertThat(answer.replayed()).isTrue();
                    assertThat(answer.id()).isEqualTo(root.id());
                    assertThat(answer.createdMs()).isEqualTo(root.createdMs());
                });
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(1);
        assertThat(f.homeEntry()).as("the owner names the root's shard, confirmed").startsWith("1:").contains(":confirmed:");
        f.assertOneFlow(shards, root);
    }

    @Test
    void aClientStoppedAfterReservingTheRootsKeyIsFinishedByItsResend() {
        Fixture f = Fixture.make();
        assertThatThrownBy(() -> f.shards(new KeyHomesClusterTest.StopAt(KeyHomes.Step.CREATE, 1)).submitFlow(f.flow(f.laneA())))
                .isInstanceOf(KeyHomesClusterTest.Stopped.class);
        assertThat(f.homeEntry()).as("H1 done").startsWith("1:").contains(":reserved:");
        assertThat(f.shardsHoldingTheKeysJob()).as("no root made").isEmpty();
        QueueShards shards = f.shards(KeyHomes.StepWatch.NONE);

        assertThatThrownBy(() -> shards.submitFlow(f.flow(f.laneB()))).as("a lane of another shard meets the key in flight")
                .isInstanceOf(KeyInFlightException.class);
        FlowSubmitted resent = shards.submitFlow(f.flow(f.laneA()));
        FlowSubmitted other = shards.submitFlow(f.flow(f.laneB()));

        assertThat(resent.replayed()).isFalse();
        assertThat(f.layout().shardOfJob(resent.id())).isEqualTo(1);
        assertThat(other.replayed()).isTrue();
        assertThat(other.id()).isEqualTo(resent.id());
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(1);
        assertThat(f.homeEntry()).contains(":confirmed:");
        f.assertOneFlow(shards, resent);
    }

    @Test
    void aClientStoppedAfterReservingTheRootsKeyIsRepairedByTheSweeperWhoseFenceRefusesItsLateCreate() {
        Fixture f = Fixture.make();
        assertThatThrownBy(() -> f.shards(new KeyHomesClusterTest.StopAt(KeyHomes.Step.CREATE, 1)).submitFlow(f.flow(f.laneA())))
                .isInstanceOf(KeyHomesClusterTest.Stopped.class);
        String token = f.homeEntry().split(":")[1];
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, f.layout());

        assertThat(queue.keyHomeSweeper().sweep(Duration.ofMinutes(1)).forgotten()).as("within its grace").isZero();
        KeyHomeSweeper.Swept swept = queue.keyHomeSweeper().sweep(Duration.ZERO);

        assertThat(swept.forgotten()).as("the reservation with no root is fenced and deleted").isEqualTo(1);
        assertThat(f.homeEntry()).isNull();
        assertThatThrownBy(() -> lateRoot(f, 1, "0:" + token)).as("the stopped client's flow-add, arriving late")
                .isInstanceOfSatisfying(KeyHomeRedirect.class, e -> assertThat(e.redirects().get(0).fenced()).isTrue());
        QueueShards shards = f.shards(KeyHomes.StepWatch.NONE);
        FlowSubmitted made = shards.submitFlow(f.flow(f.laneB()));
        assertThat(made.replayed()).isFalse();
        assertThat(f.layout().shardOfJob(made.id())).as("another lane's submission makes the root on its own shard").isEqualTo(2);
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(2);
        assertThat(shards.submitFlow(f.flow(f.laneA())).id()).as("the stopped client's lane, sent again, answers it").isEqualTo(made.id());
        f.assertOneFlow(shards, made);
    }

    @Test
    void aClientStoppedAfterMakingTheRootIsConfirmedByTheSweeperWhichTakesTheRootForTheKeysJob() {
        Fixture f = Fixture.make();
        assertThatThrownBy(() -> f.shards(new KeyHomesClusterTest.StopAt(KeyHomes.Step.CONFIRM, 1)).submitFlow(f.flow(f.laneA())))
                .isInstanceOf(KeyHomesClusterTest.Stopped.class);
        assertThat(f.shardsHoldingTheKeysJob()).as("H2 done: the root, without its children").containsExactly(1);
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, f.layout());

        KeyHomeSweeper.Swept swept = queue.keyHomeSweeper().sweep(Duration.ZERO);

        assertThat(swept.confirmed()).as("the root found on its home").isEqualTo(1);
        assertThat(swept.forgotten()).isZero();
        assertThat(f.homeEntry()).startsWith("1:").contains(":confirmed:");
        QueueShards shards = f.shards(KeyHomes.StepWatch.NONE);
        FlowSubmitted resent = shards.submitFlow(f.flow(f.laneB()));
        assertThat(resent.replayed()).as("a resend from another shard's lane answers the root").isTrue();
        assertThat(f.layout().shardOfJob(resent.id())).isEqualTo(1);
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(1);
        f.assertOneFlow(shards, resent);
    }

    /** flow-add of the fixture's root on {@code shard} by {@code claim}, as a stopped client would send it late. */
    private static FlowSubmitted lateRoot(Fixture f, int shard, String claim) {
        QueueKeys keys = f.layout().keys(shard);
        List<String> args = new ArrayList<>(List.of(keys.prefix(), "p", "3", f.laneA(), "4", f.key(), "", "", "1",
                "{\"queue\":\"" + f.queue() + "\",\"payload\":\"c\"}", "3", Integer.toString(shard), claim));
        return Replies.flowAdded(f.queue(), new ScriptRunner(redis, ReplicaWait.NONE).run(Script.FLOW_ADD, keys, null, args));
    }
}
