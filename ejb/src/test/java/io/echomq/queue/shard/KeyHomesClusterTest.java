package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.Dedupe;
import io.echomq.queue.Enqueued;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobState;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.internal.KeyHomeRedirect;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.RealServices;
import io.echomq.tracing.JobTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The key homes of a queue of three shards on the testkit's 3-master Valkey Cluster
 * (docs/SHARDING.md, 3.1): a key whose owner shard is not the job's lane shard still names one job
 * over the shards, whatever lanes its submissions name, and each crash point of the protocol (a
 * client that stops between two steps) is repaired by a resend or by the sweeper with exactly one
 * job for the key: never two, never a submission lost.
 */
class KeyHomesClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();

    /** A client that stops (as a crash would) before the {@code count}-th time it reaches {@code step}. */
    static final class StopAt implements KeyHomes.StepWatch {
        private final KeyHomes.Step step;
        private final AtomicInteger left;

        StopAt(KeyHomes.Step step, int count) {
            this.step = step;
            this.left = new AtomicInteger(count);
        }

        @Override
        public void before(KeyHomes.Step reached, int shard) {
            if (reached == step && left.decrementAndGet() == 0) {
                throw new Stopped(reached);
            }
        }
    }

    static final class Stopped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stopped(KeyHomes.Step step) {
            super("the client stopped before " + step);
        }
    }

    /** A queue of three shards, a key owned by shard 0 and lanes on shards 1 and 2, so every submission takes the slow path. */
    private record Fixture(ShardLayout layout, String key, String laneA, String laneB) {
        static Fixture make() {
            ShardLayout layout = ShardLayout.of("khq-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet(), 3);
            String key = first("key-", i -> layout.ownerOfKey("key-" + i) == 0);
            String laneA = first("lane-", i -> layout.shardOfLane("lane-" + i) == 1);
            String laneB = first("lane-", i -> layout.shardOfLane("lane-" + i) == 2);
            return new Fixture(layout, key, laneA, laneB);
        }

        String queue() {
            return layout.queue();
        }

        ShardedQueue connect(KeyHomes.StepWatch watch) {
            return ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout, watch);
        }

        NewJob keyed(String lane) {
            return NewJob.of("p").inLane(lane).withIdempotencyKey(key);
        }

        /** The shards holding a job (in any state) under the key: exactly one after every repair. */
        List<Integer> shardsHoldingTheKeysJob() {
            return shardsHolding(redis, layout, key);
        }

        String homeEntry() {
            return redis.hget(layout.keys(0).homes("idem"), key);
        }
    }

    private static String first(String stem, IntPredicate wanted) {
        return stem + IntStream.range(0, 10_000).filter(wanted).findFirst().orElseThrow();
    }

    @Test
    void aKeyOwnedByAnotherShardNamesOneJobWhateverLaneItsSubmissionsName() {
        Fixture f = Fixture.make();
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);

        Enqueued first = queue.submissions().enqueue(f.queue(), f.keyed(f.laneA()));
        Enqueued again = queue.submissions().enqueue(f.queue(), f.keyed(f.laneA()));
        Enqueued elsewhere = queue.submissions().enqueue(f.queue(), f.keyed(f.laneB()));
        Enqueued laneless = queue.submissions().enqueue(f.queue(), NewJob.of("p").withIdempotencyKey(f.key()));

        assertThat(first.created()).isTrue();
        assertThat(f.layout().shardOfJob(first.id())).as("the job is on its lane's shard").isEqualTo(1);
        assertThat(List.of(again, elsewhere, laneless)).as("every later submission answers the first job")
                .allSatisfy(answer -> assertThat(answer.outcome()).isEqualTo(Enqueued.Outcome.DUPLICATE))
                .extracting(Enqueued::id).containsOnly(first.id());
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(1);
        assertThat(f.homeEntry()).as("the owner names the home, confirmed").startsWith("1:").contains(":confirmed:");
    }

    @Test
    void aStopBetweenReservingAndCreatingIsFinishedByTheResend() {
        Fixture f = Fixture.make();
        ShardedQueue stopping = f.connect(new StopAt(KeyHomes.Step.CREATE, 1));
        assertThatThrownBy(() -> stopping.submissions().enqueue(f.queue(), f.keyed(f.laneA()))).isInstanceOf(Stopped.class);
        assertThat(f.homeEntry()).as("H1 done").contains(":reserved:");
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);

        assertThatThrownBy(() -> queue.submissions().enqueue(f.queue(), f.keyed(f.laneB())))
                .as("another lane's submission meets the key in flight").isInstanceOf(KeyInFlightException.class);
        Enqueued resent = queue.submissions().enqueue(f.queue(), f.keyed(f.laneA()));
        Enqueued other = queue.submissions().enqueue(f.queue(), f.keyed(f.laneB()));

        assertThat(resent.created()).isTrue();
        assertThat(other.outcome()).isEqualTo(Enqueued.Outcome.DUPLICATE);
        assertThat(other.id()).isEqualTo(resent.id());
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(1);
        assertThat(f.homeEntry()).contains(":confirmed:");
    }

    @Test
    void aStopBetweenReservingAndCreatingIsRepairedByTheSweeperAndTheLateCreateIsFenced() {
        Fixture f = Fixture.make();
        ShardedQueue stopping = f.connect(new StopAt(KeyHomes.Step.CREATE, 1));
        assertThatThrownBy(() -> stopping.submissions().enqueue(f.queue(), f.keyed(f.laneA()))).isInstanceOf(Stopped.class);
        String token = f.homeEntry().split(":")[1];
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);

        assertThat(queue.keyHomeSweeper().sweep(Duration.ofMinutes(1)).forgotten()).as("within its grace").isZero();
        KeyHomeSweeper.Swept swept = queue.keyHomeSweeper().sweep(Duration.ZERO);
        QueueClient shardA = QueueClient.connectShard(redis, QueueSettings.DEFAULT, ReplicaWait.NONE, JobTelemetry.OFF, f.layout(), 1);

        assertThat(swept.forgotten()).as("the reservation with no job is fenced and deleted").isEqualTo(1);
        assertThat(f.homeEntry()).isNull();
        assertThatThrownBy(() -> shardA.submissions().enqueueClaimed(f.queue(), f.keyed(f.laneA()), "0:" + token, "own"))
                .as("the stopped client's create, arriving late").isInstanceOf(KeyHomeRedirect.class)
                .satisfies(e -> assertThat(((KeyHomeRedirect) e).redirects().get(0).fenced()).isTrue());
        Enqueued made = queue.submissions().enqueue(f.queue(), f.keyed(f.laneB()));
        assertThat(made.created()).isTrue();
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(2);
    }

    @Test
    void aStopBetweenCreatingAndConfirmingIsConfirmedByTheNextSubmitterOrTheSweeper() {
        Fixture f = Fixture.make();
        ShardedQueue stopping = f.connect(new StopAt(KeyHomes.Step.CONFIRM, 1));
        assertThatThrownBy(() -> stopping.submissions().enqueue(f.queue(), f.keyed(f.laneA()))).isInstanceOf(Stopped.class);
        assertThat(f.shardsHoldingTheKeysJob()).as("H2 done").containsExactly(1);
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);

        Enqueued other = queue.submissions().enqueue(f.queue(), f.keyed(f.laneB()));

        assertThat(other.outcome()).as("the home holds the job: answered from there").isEqualTo(Enqueued.Outcome.DUPLICATE);
        assertThat(f.homeEntry()).contains(":confirmed:");

        Fixture g = Fixture.make();
        ShardedQueue stoppingToo = g.connect(new StopAt(KeyHomes.Step.CONFIRM, 1));
        assertThatThrownBy(() -> stoppingToo.submissions().enqueue(g.queue(), g.keyed(g.laneA()))).isInstanceOf(Stopped.class);
        assertThat(g.connect(KeyHomes.StepWatch.NONE).keyHomeSweeper().sweep(Duration.ZERO).confirmed()).isEqualTo(1);
        assertThat(g.homeEntry()).contains(":confirmed:");
        assertThat(g.shardsHoldingTheKeysJob()).containsExactly(1);
    }

    @Test
    void aKeyWhoseJobIsGoneMovesHomeAndAStopBetweenFencingAndReservingIsFinishedByTheResend() {
        Fixture f = Fixture.make();
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);
        Enqueued first = queue.submissions().enqueue(f.queue(), f.keyed(f.laneA()));
        assertThat(queue.admin().cancel(f.queue(), first.id())).isInstanceOf(ManualTransition.Moved.class);
        assertThat(queue.admin().remove(f.queue(), first.id())).isInstanceOf(ManualTransition.Removed.class);
        ShardedQueue stopping = f.connect(new StopAt(KeyHomes.Step.RESERVE, 2));

        assertThatThrownBy(() -> stopping.submissions().enqueue(f.queue(), f.keyed(f.laneB()))).isInstanceOf(Stopped.class);
        assertThat(f.homeEntry()).as("the old home is fenced, the entry still names it").startsWith("1:");
        Enqueued moved = queue.submissions().enqueue(f.queue(), f.keyed(f.laneB()));

        assertThat(moved.created()).isTrue();
        assertThat(f.layout().shardOfJob(moved.id())).isEqualTo(2);
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(2);
        assertThat(queue.submissions().enqueue(f.queue(), f.keyed(f.laneA())).id()).as("the old home's lane follows the new home")
                .isEqualTo(moved.id());
    }

    @Test
    void aKeyOwnedByTheLanesShardFollowsItsHomeElsewhere() {
        Fixture f = Fixture.make();
        String ownersLane = first("lane-", i -> f.layout().shardOfLane("lane-" + i) == 0);
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);
        Enqueued first = queue.submissions().enqueue(f.queue(), f.keyed(f.laneA()));

        Enqueued fromTheOwner = queue.submissions().enqueue(f.queue(), f.keyed(ownersLane));

        assertThat(fromTheOwner.outcome()).isEqualTo(Enqueued.Outcome.DUPLICATE);
        assertThat(fromTheOwner.id()).isEqualTo(first.id());
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(1);
    }

    @Test
    void dedupeWindowsLiveOnTheirHomeAndADebounceDoesNotMoveAcrossShards() {
        Fixture f = Fixture.make();
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);
        NewJob throttled = NewJob.of("t").withDedupe(Dedupe.throttle(f.key(), Duration.ofMinutes(1)));
        Enqueued opened = queue.submissions().enqueue(f.queue(), throttled.inLane(f.laneA()));

        Enqueued elsewhere = queue.submissions().enqueue(f.queue(), throttled.inLane(f.laneB()));

        assertThat(opened.created()).isTrue();
        assertThat(elsewhere.outcome()).as("the window on shard 1 throttles a lane of shard 2").isEqualTo(Enqueued.Outcome.THROTTLED);
        assertThat(elsewhere.id()).isEqualTo(opened.id());

        String debounceKey = f.key() + "-d";
        String debounceLaneA = first("lane-", i -> f.layout().shardOfLane("lane-" + i) != f.layout().ownerOfKey(debounceKey));
        String debounceLaneB = first("lane-", i -> f.layout().shardOfLane("lane-" + i) != f.layout().ownerOfKey(debounceKey)
                && f.layout().shardOfLane("lane-" + i) != f.layout().shardOfLane(debounceLaneA));
        NewJob debounced = NewJob.of("d").withDedupe(Dedupe.debounce(debounceKey, Duration.ofMinutes(1)));
        Enqueued waiting = queue.submissions().enqueue(f.queue(), debounced.inLane(debounceLaneA));
        Enqueued replaced = queue.submissions().enqueue(f.queue(), debounced.inLane(debounceLaneA));
        assertThat(waiting.state()).isEqualTo(JobState.DELAYED);
        assertThat(replaced.outcome()).isEqualTo(Enqueued.Outcome.REPLACED);
        assertThatThrownBy(() -> queue.submissions().enqueue(f.queue(), debounced.inLane(debounceLaneB)))
                .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("dedupe.key")
                .hasMessageContaining("must keep to lanes of that shard");
    }

    @Test
    void theSweeperForgetsHomesWhoseJobIsGoneAndReplacesFencesByAFloor() {
        Fixture f = Fixture.make();
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);
        Enqueued first = queue.submissions().enqueue(f.queue(), f.keyed(f.laneA()));
        String token = f.homeEntry().split(":")[1];
        queue.admin().cancel(f.queue(), first.id());
        queue.admin().remove(f.queue(), first.id());

        KeyHomeSweeper.Swept swept = queue.keyHomeSweeper().sweep(Duration.ZERO);

        assertThat(swept.forgotten()).isEqualTo(1);
        assertThat(swept.fencesDeleted()).as("the fence the release left on shard 1").isEqualTo(1);
        assertThat(f.homeEntry()).isNull();
        assertThat(redis.hlen(f.layout().keys(1).fence("idem"))).isZero();
        QueueClient shardA = QueueClient.connectShard(redis, QueueSettings.DEFAULT, ReplicaWait.NONE, JobTelemetry.OFF, f.layout(), 1);
        assertThatThrownBy(() -> shardA.submissions().enqueueClaimed(f.queue(), f.keyed(f.laneA()), "0:" + token, "own"))
                .as("the floor still refuses the forgotten token").isInstanceOf(KeyHomeRedirect.class);
        assertThat(queue.submissions().enqueue(f.queue(), f.keyed(f.laneB())).created()).isTrue();
        assertThat(f.shardsHoldingTheKeysJob()).containsExactly(2);
    }

    @Test
    void submissionsRacingWithOneKeyFromLanesOnEveryShardMakeOneJob() throws Exception {
        Fixture f = Fixture.make();
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);
        List<String> lanes = List.of(f.laneA(), f.laneB(), first("lane-", i -> f.layout().shardOfLane("lane-" + i) == 0));
        List<String> keys = IntStream.range(0, 30).mapToObj(i -> "race-" + i).toList();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(lanes.size());
        try {
            List<java.util.concurrent.Future<List<String>>> answers = new ArrayList<>();
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            for (String lane : lanes) {
                answers.add(pool.submit(() -> {
                    start.await();
                    List<String> ids = new ArrayList<>();
                    for (String key : keys) {
                        ids.add(untilAnswered(() -> queue.submissions().enqueue(f.queue(), NewJob.of("p").inLane(lane).withIdempotencyKey(key))).id());
                    }
                    return ids;
                }));
            }
            start.countDown();
            List<String> first = answers.get(0).get();
            for (java.util.concurrent.Future<List<String>> other : answers) {
                assertThat(other.get()).as("every lane's submissions are answered with the same job per key").isEqualTo(first);
            }
        } finally {
            pool.shutdownNow();
        }
        for (String key : keys) {
            assertThat(shardsHolding(redis, f.layout(), key).size()).as("jobs of key %s over the shards", key).isEqualTo(1);
        }
    }

    /** The shards of {@code layout} holding a job (in any state) under the idempotency key {@code key}. */
    static List<Integer> shardsHolding(UnifiedJedis redis, ShardLayout layout, String key) {
        List<Integer> holding = new ArrayList<>();
        for (int shard = 0; shard < layout.shards(); shard++) {
            QueueKeys keys = layout.keys(shard);
            String id = redis.hget(keys.idempotency(), key);
            if (id != null && redis.exists(keys.job(id))) {
                holding.add(shard);
            }
        }
        return holding;
    }

    /** Sends a keyed submission again while its key is in flight on another shard, as a client answered 503 would. */
    private static Enqueued untilAnswered(java.util.concurrent.Callable<Enqueued> send) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                return send.call();
            } catch (KeyInFlightException e) {
                if (attempt > 1_000) {
                    throw e;
                }
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void aReservationLeftUnusedBecauseAnotherKeyAnsweredIsReleased() {
        Fixture f = Fixture.make();
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);
        String windowKey = f.key() + "-w";
        queue.submissions().enqueue(f.queue(), NewJob.of("w").inLane(f.laneB()).withDedupe(Dedupe.throttle(windowKey, Duration.ofMinutes(1))));
        NewJob both = f.keyed(f.laneA()).withDedupe(Dedupe.throttle(windowKey, Duration.ofMinutes(1)));

        Enqueued throttled = queue.submissions().enqueue(f.queue(), both);

        assertThat(throttled.outcome()).isEqualTo(Enqueued.Outcome.THROTTLED);
        assertThat(f.homeEntry()).as("the idempotency key's reservation, unused, is gone").isNull();
        assertThat(f.shardsHoldingTheKeysJob()).isEmpty();
        assertThat(queue.submissions().enqueue(f.queue(), f.keyed(f.laneB())).created())
                .as("another lane may take the key at once: it is not left in flight").isTrue();
    }

    @Test
    void aSubmissionAnsweredKeyInFlightForOneKeyLeavesItsOtherKeyFree() {
        Fixture f = Fixture.make();
        String windowKey = f.key() + "-w";
        NewJob windowed = NewJob.of("w").withDedupe(Dedupe.throttle(windowKey, Duration.ofMinutes(1)));
        String laneAway = first("lane-", i -> f.layout().shardOfLane("lane-" + i) != f.layout().ownerOfKey(windowKey)
                && f.layout().shardOfLane("lane-" + i) != 1);
        ShardedQueue stopping = f.connect(new StopAt(KeyHomes.Step.CREATE, 1));
        assertThatThrownBy(() -> stopping.submissions().enqueue(f.queue(), windowed.inLane(laneAway))).isInstanceOf(Stopped.class);
        ShardedQueue queue = f.connect(KeyHomes.StepWatch.NONE);
        NewJob both = f.keyed(f.laneA()).withDedupe(Dedupe.throttle(windowKey, Duration.ofMinutes(1)));

        assertThatThrownBy(() -> queue.submissions().enqueue(f.queue(), both)).isInstanceOf(KeyInFlightException.class)
                .hasMessageContaining("dedupe key '" + windowKey + "'");

        assertThat(f.homeEntry()).as("the idempotency key's reservation is given up").isNull();
        assertThat(queue.submissions().enqueue(f.queue(), f.keyed(f.laneB())).created()).as("another lane takes the key at once").isTrue();
    }
}
