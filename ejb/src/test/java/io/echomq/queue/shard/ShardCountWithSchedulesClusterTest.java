package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.testkit.RealServices;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * A change of a queue's shard count while it has schedules (docs/SHARDING.md, 3.3 and 10): refused
 * naming {@code echomq.queues.<q>.shards} while a schedule would be left where the new layout
 * cannot reach it, and otherwise made with every schedule of shard 0 reachable by its name.
 */
class ShardCountWithSchedulesClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();

    @Test
    void aScheduleOnAShardOtherThanZeroRefusesAChangeOfTheShardCountUntilItIsRemoved() {
        String name = newQueue();
        ShardedQueue three = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
        String lane = ShardLanes.firstOn(three.layout(), 1);
        three.schedules().put(Schedule.every(name, "hourly", Duration.ofHours(1), "{}").inLane(lane), "api");

        assertThatThrownBy(() -> ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 2)))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + name + ".shards: queue '" + name + "' cannot have 2 shards now: "
                        + "its shard 1 of 3 holds 1 schedules (hourly)")
                .hasMessageContaining("remove these schedules");
        assertThatThrownBy(() -> ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 1)))
                .as("back to one shard as well").isInstanceOf(ShardCountRefusedException.class);
        assertThat(redis.hget(new QueueKeys(name).meta(), "id_stride")).as("the layout kept").isEqualTo("3");
        assertThat(three.schedules().get(name, "hourly")).as("the schedule kept").isPresent();

        assertThat(three.schedules().remove(name, "hourly")).isTrue();
        ShardedQueue two = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 2));
        assertThat(two.layout().shards()).as("changed once the schedule is removed").isEqualTo(2);
    }

    @Test
    void aNameWhoseHomeIsAShardOtherThanZeroRefusesAChangeEvenWithoutItsSchedule() {
        String name = newQueue();
        ShardLayout layout = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3)).layout();
        // A put stopped after claiming the name's home on shard 2 and before putting the schedule there.
        new ScriptRunner(redis, ReplicaWait.NONE).run(Script.SCHEDULE_HOME, layout.keys(0), "half-put", List.of("half-put", "2", "claim"));

        assertThatThrownBy(() -> ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 2)))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + name + ".shards: ")
                .hasMessageContaining("schedule 'half-put' has its home on shard 2");
    }

    @Test
    void aMoveOfAScheduleLeftUnfinishedRefusesAChangeUntilTheTickerFinishesIt() {
        String name = newQueue();
        ShardedQueue three = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
        three.schedules().put(Schedule.every(name, "hourly", Duration.ofHours(1), "{}"), "api");
        // A move from shard 0 to shard 1 stopped after its S2: the schedule is on neither shard, only in the move's record.
        assertThatThrownBy(() -> three.schedules().afterStep(step -> {
            if (step == ShardedSchedules.Step.MOVE_REMOVED) {
                throw new IllegalStateException("stopped");
            }
        }).put(Schedule.every(name, "hourly", Duration.ofHours(1), "{}").inLane(ShardLanes.firstOn(three.layout(), 1)), "api"))
                .hasMessage("stopped");

        assertThatThrownBy(() -> ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 2)))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageContaining("schedule 'hourly' is moving to another shard");
        three.schedules().tick(name);
        assertThat(three.schedules().get(name, "hourly")).as("finished by the ticker").isPresent();
    }

    @Test
    void aScheduleOnShardZeroOfALaneTheNewCountPutsOnAnotherShardRefusesTheChange() {
        String name = newQueue();
        String lane = ShardLanes.firstOn(ShardLayout.of(name, 3), 2);
        QueueClient.connect(redis, QueueSettings.DEFAULT).schedules().put(Schedule.every(name, "report", Duration.ofHours(1), "{}")
                .inLane(lane), "api");

        assertThatThrownBy(() -> ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3)))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + name + ".shards: ")
                .hasMessageContaining("schedule 'report' on shard 0 makes jobs in lane '" + lane + "', which 3 shards put on shard 2");
    }

    @Test
    void schedulesOfAQueueOfOneShardStayReachableByNameOnShardZeroOnceItIsSharded() {
        String name = newQueue();
        ShardLayout three = ShardLayout.of(name, 3);
        QueueClient unsharded = QueueClient.connect(redis, QueueSettings.DEFAULT);
        unsharded.schedules().put(Schedule.every(name, "nightly", Duration.ofHours(1), "{}"), "api");
        unsharded.schedules().put(Schedule.every(name, "lane-0", Duration.ofHours(1), "{}").inLane(ShardLanes.firstOn(three, 0)), "api");

        ShardedSchedules schedules = ShardedQueue.connect(redis, QueueSettings.DEFAULT, three).schedules();

        assertThat(schedules.get(name, "nightly")).as("found by its name").isPresent();
        assertThat(schedules.get(name, "lane-0")).isPresent();
        assertThat(schedules.pause(name, "nightly")).isTrue();
        assertThat(schedules.get(name, "nightly").orElseThrow().paused()).isTrue();
        assertThat(schedules.put(Schedule.every(name, "nightly", Duration.ofHours(1), "{}").inLane(ShardLanes.firstOn(three, 2)), "api"))
                .as("moved to its new lane's shard").isEqualTo(ScheduleClient.PutResult.REPLACED);
        assertThat(redis.hexists(three.keys(0).schedule("nightly"), "version")).as("no second copy on shard 0").isFalse();
        assertThat(redis.hexists(three.keys(2).schedule("nightly"), "version")).isTrue();
        assertThat(schedules.get(name, "nightly").orElseThrow().paused()).as("still paused").isTrue();
        assertThat(schedules.remove(name, "nightly")).isTrue();
        assertThat(schedules.list(name)).extracting(view -> view.definition().name()).containsExactly("lane-0");
    }

    private static String newQueue() {
        return "shsched-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
    }
}
