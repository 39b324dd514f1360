package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.QueueSettings;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleChangedConcurrentlyException;
import io.echomq.queue.schedule.ScheduleView;
import io.echomq.testkit.RealServices;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * Two changes of one schedule name at once on a sharded queue (docs/SHARDING.md, 3.3): a put or
 * remove is a step on the name's directory and a step on its home shard, and another request's
 * change can run between the two. The one applied later on the home wins; the overtaken one
 * changes nothing and is told so, and the name always reaches its one schedule.
 */
class ShardedSchedulesOvertakingClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();

    @Test
    void aPutOvertakenByARemoveOfTheNameChangesNothingWhenItLands() {
        ShardedQueue queue = newQueue();
        String q = queue.layout().queue();
        String lane = ShardLanes.firstOn(queue.layout(), 1);
        ShardedSchedules schedules = queue.schedules();
        schedules.put(hourly(q, lane, "{\"v\":1}"), "api");

        ShardedSchedules overtaken = schedules.betweenSteps(() -> assertThat(schedules.remove(q, "hourly")).isTrue());
        assertThatThrownBy(() -> overtaken.put(hourly(q, lane, "{\"v\":2}"), "api"))
                .isInstanceOf(ScheduleChangedConcurrentlyException.class)
                .hasMessageContaining("schedule 'hourly' of queue '" + q + "' was changed by another request");

        assertThat(schedules.list(q)).as("no schedule left that its name does not reach").isEmpty();
        assertThat(schedules.get(q, "hourly")).isEmpty();
        assertThat(redis.hget(queue.layout().keys(0).scheduleHomes(), "hourly")).isNull();
        schedules.put(hourly(q, lane, "{\"v\":3}"), "api");
        assertThat(schedules.get(q, "hourly").orElseThrow().definition().payload()).as("put again afterwards").isEqualTo("{\"v\":3}");
    }

    @Test
    void aPutOvertakenByARemoveAndAPutFromAnotherShardsLaneLeavesOneScheduleOfTheName() {
        ShardedQueue queue = newQueue();
        String q = queue.layout().queue();
        String laneOne = ShardLanes.firstOn(queue.layout(), 1);
        String laneTwo = ShardLanes.firstOn(queue.layout(), 2);
        ShardedSchedules schedules = queue.schedules();
        schedules.put(hourly(q, laneOne, "{\"v\":1}"), "api");

        ShardedSchedules overtaken = schedules.betweenSteps(() -> {
            schedules.remove(q, "hourly");
            schedules.put(hourly(q, laneTwo, "{\"v\":2}"), "api");
        });
        assertThatThrownBy(() -> overtaken.put(hourly(q, laneOne, "{\"v\":3}"), "api"))
                .isInstanceOf(ScheduleChangedConcurrentlyException.class);

        List<ScheduleView> all = schedules.list(q);
        assertThat(all).as("one schedule of the name over the shards").hasSize(1);
        assertThat(all.get(0).definition().lane()).isEqualTo(laneTwo);
        assertThat(redis.zcard(queue.layout().keys(1).schedules())).as("nothing left on shard 1").isZero();
        assertThat(schedules.get(q, "hourly").orElseThrow().definition().payload()).isEqualTo("{\"v\":2}");
    }

    @Test
    void aRemoveOvertakenByAPutOfTheNameKeepsTheNewDefinitionAndItsName() {
        ShardedQueue queue = newQueue();
        String q = queue.layout().queue();
        String lane = ShardLanes.firstOn(queue.layout(), 2);
        ShardedSchedules schedules = queue.schedules();
        schedules.put(hourly(q, lane, "{\"v\":1}"), "api");

        ShardedSchedules overtaken = schedules.betweenSteps(() -> schedules.put(hourly(q, lane, "{\"v\":2}"), "api"));
        assertThatThrownBy(() -> overtaken.remove(q, "hourly")).isInstanceOf(ScheduleChangedConcurrentlyException.class)
                .hasMessageContaining("this remove changed nothing");

        assertThat(schedules.get(q, "hourly").orElseThrow().definition().payload()).as("the later put stands, reached by name")
                .isEqualTo("{\"v\":2}");
        assertThat(schedules.remove(q, "hourly")).as("and is removed by name").isTrue();
        assertThat(schedules.list(q)).isEmpty();
    }

    @Test
    void putsAndRemovesOneAfterAnotherAreNotHeldBackByTheFencesTheyLeave() {
        ShardedQueue queue = newQueue();
        String q = queue.layout().queue();
        String lane = ShardLanes.firstOn(queue.layout(), 1);
        ShardedSchedules schedules = queue.schedules();
        for (int round = 0; round < 3; round++) {
            schedules.put(hourly(q, lane, "{\"round\":" + round + "}"), "api");
            assertThat(schedules.get(q, "hourly")).isPresent();
            assertThat(schedules.remove(q, "hourly")).isTrue();
            assertThat(schedules.remove(q, "hourly")).as("removed twice").isFalse();
        }
        assertThat(redis.pttl(queue.layout().keys(1).schedule("hourly"))).as("the fence a remove leaves expires")
                .isPositive().isLessThanOrEqualTo(Duration.ofHours(1).toMillis());
    }

    private static Schedule hourly(String queue, String lane, String payload) {
        return Schedule.every(queue, "hourly", Duration.ofHours(1), payload).inLane(lane);
    }

    private static ShardedQueue newQueue() {
        String name = "shover-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
        return ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
    }
}
