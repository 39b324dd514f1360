package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.QueueSettings;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleChangedConcurrentlyException;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.schedule.ScheduleView;
import io.echomq.testkit.RealServices;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.RedisClusterClient;

/**
 * A put from a lane of another shard than the schedule's moves it there (docs/SHARDING.md 3.3,
 * S1-S4): one schedule afterwards, on the new lane's shard, firing one job per slot; never two
 * copies, whatever step a stop interrupts, and the ticker or the name's next change finishes a
 * move a stop left; a remove or a put during a move leaves one schedule of the name or none.
 */
class ShardedScheduleMoveClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();

    /** A stop of the caller after a step: the hook throws it, as a crash would end the put there. */
    private static final class Stop extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    @Test
    void aMoveEndsWithOneScheduleOnTheNewLanesShardThatFiresOneJobPerSlot() {
        ShardedQueue queue = newQueue();
        ShardLayout layout = queue.layout();
        String q = layout.queue();
        String laneOne = ShardLanes.firstOn(layout, 1);
        String laneTwo = ShardLanes.firstOn(layout, 2);
        ShardedSchedules schedules = queue.schedules();
        schedules.put(everyFiftyMs(q, laneOne), "api");
        Awaitility.await("a slot fired on shard 1").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> schedules.tick(q).fired() > 0);

        assertThat(schedules.put(everyFiftyMs(q, laneTwo), "api")).as("a move replaces the definition")
                .isEqualTo(ScheduleClient.PutResult.REPLACED);

        Map<String, String> firedOnOne = redis.hgetAll(layout.keys(1).idempotency());
        assertThat(copies(layout, "tick")).as("the one copy, on the new lane's shard").containsExactly(2);
        assertThat(schedules.get(q, "tick").orElseThrow().definition().lane()).isEqualTo(laneTwo);
        assertThat(schedules.list(q)).singleElement().satisfies(view -> assertThat(view.definition().lane()).isEqualTo(laneTwo));
        assertThat(redis.hget(layout.keys(0).scheduleHomes(), "tick")).isEqualTo("2");
        assertThat(redis.hlen(layout.keys(0).scheduleMoves())).as("the move is done").isZero();

        Awaitility.await("three slots fired on shard 2").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    schedules.tick(q);
                    return redis.hlen(layout.keys(2).idempotency()) >= 3;
                });
        assertThat(redis.hgetAll(layout.keys(1).idempotency())).as("nothing fired on the old shard since").isEqualTo(firedOnOne);
        Map<String, String> firedOnTwo = redis.hgetAll(layout.keys(2).idempotency());
        assertThat(Set.copyOf(firedOnTwo.values())).as("one job per slot").hasSameSizeAs(firedOnTwo.keySet())
                .allSatisfy(id -> assertThat(layout.shardOfJob(id)).isEqualTo(2));
        long lastSlotOnOne = slots(firedOnOne).stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(slots(firedOnTwo)).as("no slot fired on both shards: the new shard's come after the old one's")
                .allSatisfy(slot -> assertThat(slot).isGreaterThan(lastSlotOnOne));
        assertThat(redis.zcard(layout.keys(2).pending(laneTwo))).as("each slot's job, in the new lane")
                .isEqualTo(firedOnTwo.size());
    }

    @Test
    void aPausedScheduleStaysPausedWhenItMoves() {
        ShardedQueue queue = newQueue();
        ShardLayout layout = queue.layout();
        String q = layout.queue();
        ShardedSchedules schedules = queue.schedules();
        schedules.put(everyFiftyMs(q, ShardLanes.firstOn(layout, 1)), "api");
        assertThat(schedules.pause(q, "tick")).isTrue();

        schedules.put(everyFiftyMs(q, ShardLanes.firstOn(layout, 0)), "api");

        assertThat(copies(layout, "tick")).containsExactly(0);
        assertThat(schedules.get(q, "tick").orElseThrow().paused()).as("still paused").isTrue();
        sleep(200);
        assertThat(schedules.tick(q).fired()).as("a paused schedule fires nothing").isZero();
        assertThat(schedules.resume(q, "tick")).isTrue();
        Awaitility.await("fires once resumed").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> schedules.tick(q).fired() > 0);
    }

    @ParameterizedTest
    @EnumSource(ShardedSchedules.Step.class)
    void aMoveStoppedAfterAnyStepIsFinishedByTheTickerWithNeverTwoCopies(ShardedSchedules.Step stopAfter) {
        OnShardOne one = hourlyOnShardOne("api");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();
        schedules.pause(q, "hourly");

        one.moveToShardTwoStoppedAfter(stopAfter);
        assertThat(copies(layout, "hourly")).as("at most one copy when stopped after " + stopAfter).hasSizeLessThanOrEqualTo(1);
        assertThat(redis.hexists(layout.keys(0).scheduleMoves(), "hourly")).as("the move is recorded as unfinished").isTrue();

        schedules.tick(q);

        assertMovedToShardTwo(layout, schedules, "{\"v\":2}");
        assertThat(schedules.get(q, "hourly").orElseThrow().paused()).as("paused as it was").isTrue();
    }

    @Test
    void aPausedScheduleWhoseMoveStoppedAfterItsRemovalStaysPausedHoweverLongTheStopLasts() {
        OnShardOne one = hourlyOnShardOne("api");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();
        schedules.pause(q, "hourly");
        one.moveToShardTwoStoppedAfter(ShardedSchedules.Step.MOVE_REMOVED);
        String keptOnShardOne = layout.keys(1).schedule("hourly");

        expireAsTimePasses(keptOnShardOne);
        schedules.tick(q);

        assertMovedToShardTwo(layout, schedules, "{\"v\":2}");
        assertThat(schedules.get(q, "hourly").orElseThrow().paused()).as("paused as it was").isTrue();
        assertThat(redis.pttl(keptOnShardOne)).as("what the old shard kept lives an hour at most once the move is done")
                .isBetween(1L, Duration.ofHours(1).toMillis());
    }

    @ParameterizedTest
    @EnumSource(ShardedSchedules.Step.class)
    void aMoveTheTickerFinishesWhileItIsUnderWayEndsOnceWithOneCopy(ShardedSchedules.Step tickAfter) {
        OnShardOne one = hourlyOnShardOne("api");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();
        ShardedSchedules ticked = schedules.afterStep(step -> {
            if (step == tickAfter) {
                schedules.tick(q);
                assertThat(copies(layout, "hourly")).as("one copy once the ticker finished the move").containsExactly(2);
            }
        });

        assertThat(ticked.put(hourly(q, ShardLanes.firstOn(layout, 2), "{\"v\":2}"), "api")).as("the mover's steps, sent again, agree")
                .isEqualTo(ScheduleClient.PutResult.REPLACED);

        assertMovedToShardTwo(layout, schedules, "{\"v\":2}");
    }

    @ParameterizedTest
    @EnumSource(ShardedSchedules.Step.class)
    void aMoveStoppedAfterAnyStepIsFinishedByTheNamesNextPut(ShardedSchedules.Step stopAfter) {
        OnShardOne one = hourlyOnShardOne("api");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();
        one.moveToShardTwoStoppedAfter(stopAfter);

        assertThat(schedules.put(hourly(q, ShardLanes.firstOn(layout, 2), "{\"v\":3}"), "api")).isEqualTo(ScheduleClient.PutResult.REPLACED);

        assertMovedToShardTwo(layout, schedules, "{\"v\":3}");
    }

    @ParameterizedTest
    @EnumSource(ShardedSchedules.Step.class)
    void aRemoveAfterAMoveStoppedAfterAnyStepLeavesNoCopyOnEitherShard(ShardedSchedules.Step stopAfter) {
        OnShardOne one = hourlyOnShardOne("api");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();
        one.moveToShardTwoStoppedAfter(stopAfter);

        assertThat(schedules.remove(q, "hourly")).isTrue();

        assertGone(layout, schedules);
        schedules.tick(q);
        assertGone(layout, schedules);
    }

    @Test
    void aRemoveDuringAMoveLeavesNoCopyOnEitherShard() {
        OnShardOne one = hourlyOnShardOne("api");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();

        ShardedSchedules overtaken = schedules.betweenSteps(() -> assertThat(schedules.remove(q, "hourly")).isTrue());
        assertThatThrownBy(() -> overtaken.put(hourly(q, ShardLanes.firstOn(layout, 2), "{\"v\":2}"), "api"))
                .isInstanceOf(ScheduleChangedConcurrentlyException.class);

        assertGone(layout, schedules);
        schedules.tick(q);
        assertGone(layout, schedules);
    }

    @Test
    void aPutOvertakingAMoveStandsAndTheMoveIsToldItChangedNothing() {
        OnShardOne one = hourlyOnShardOne("api");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();

        // The later put is from the old shard's lane: it finishes the move, then moves the schedule back.
        ShardedSchedules overtaken = schedules.betweenSteps(() -> schedules.put(hourly(q, ShardLanes.firstOn(layout, 1), "{\"v\":3}"), "api"));
        assertThatThrownBy(() -> overtaken.put(hourly(q, ShardLanes.firstOn(layout, 2), "{\"v\":2}"), "api"))
                .isInstanceOf(ScheduleChangedConcurrentlyException.class);

        assertThat(copies(layout, "hourly")).as("one copy, where the later put left it").containsExactly(1);
        assertThat(schedules.list(q)).singleElement().satisfies(view -> assertThat(view.definition().payload()).isEqualTo("{\"v\":3}"));
        assertThat(schedules.get(q, "hourly").orElseThrow().definition().payload()).isEqualTo("{\"v\":3}");
        assertThat(redis.hlen(layout.keys(0).scheduleMoves())).isZero();
    }

    @Test
    void aPutOvertakenByAMoveChangesNothingWhenItLands() {
        OnShardOne one = hourlyOnShardOne("api");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();

        ShardedSchedules overtaken = schedules.betweenSteps(() -> schedules.put(hourly(q, ShardLanes.firstOn(layout, 2), "{\"v\":3}"), "api"));
        assertThatThrownBy(() -> overtaken.put(hourly(q, ShardLanes.firstOn(layout, 1), "{\"v\":2}"), "api"))
                .isInstanceOf(ScheduleChangedConcurrentlyException.class);

        assertMovedToShardTwo(layout, schedules, "{\"v\":3}");
    }

    @Test
    void aConfiguredScheduleMovedOverTheApiStaysMovedUntilItsConfigurationChanges() {
        OnShardOne one = hourlyOnShardOne("config");
        ShardLayout layout = one.layout();
        String q = layout.queue();
        ShardedSchedules schedules = one.schedules();
        schedules.put(hourly(q, ShardLanes.firstOn(layout, 2), "{\"v\":1}"), "api");

        assertThat(schedules.put(hourly(q, ShardLanes.firstOn(layout, 1), "{\"v\":1}"), "config")).as("a restart, configuration unchanged")
                .isEqualTo(ScheduleClient.PutResult.KEPT);
        assertMovedToShardTwo(layout, schedules, "{\"v\":1}");

        assertThat(schedules.put(hourly(q, ShardLanes.firstOn(layout, 1), "{\"v\":2}"), "config")).as("configuration changed")
                .isEqualTo(ScheduleClient.PutResult.REPLACED);
        assertThat(copies(layout, "hourly")).containsExactly(1);
        assertThat(schedules.get(q, "hourly").orElseThrow().source()).isEqualTo("config");
    }

    private static void assertMovedToShardTwo(ShardLayout layout, ShardedSchedules schedules, String payload) {
        String q = layout.queue();
        assertThat(copies(layout, "hourly")).as("one copy, on the new lane's shard").containsExactly(2);
        ScheduleView view = schedules.get(q, "hourly").orElseThrow();
        assertThat(view.definition().lane()).isEqualTo(ShardLanes.firstOn(layout, 2));
        assertThat(view.definition().payload()).isEqualTo(payload);
        assertThat(schedules.list(q)).extracting(v -> v.definition().lane()).containsExactly(ShardLanes.firstOn(layout, 2));
        assertThat(redis.hget(layout.keys(0).scheduleHomes(), "hourly")).isEqualTo("2");
        assertThat(redis.hlen(layout.keys(0).scheduleMoves())).as("no move left unfinished").isZero();
    }

    private static void assertGone(ShardLayout layout, ShardedSchedules schedules) {
        assertThat(copies(layout, "hourly")).as("no copy on any shard").isEmpty();
        assertThat(schedules.list(layout.queue())).isEmpty();
        assertThat(schedules.get(layout.queue(), "hourly")).isEmpty();
        assertThat(redis.hget(layout.keys(0).scheduleHomes(), "hourly")).isNull();
        assertThat(redis.hlen(layout.keys(0).scheduleMoves())).isZero();
    }

    /** What a long stop does to {@code key}: if it has a time to live, it expires now. */
    private static void expireAsTimePasses(String key) {
        if (redis.pttl(key) > 0) {
            redis.pexpire(key, 1);
            Awaitility.await(key + " expired").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                    .until(() -> !redis.exists(key));
        }
    }

    /** The shards that hold a schedule of the name (its definition, or its place in the index). */
    private static List<Integer> copies(ShardLayout layout, String name) {
        return IntStream.range(0, layout.shards())
                .filter(s -> redis.hexists(layout.keys(s).schedule(name), "version") || redis.zscore(layout.keys(s).schedules(), name) != null)
                .boxed().toList();
    }

    private static ShardedSchedules stoppedAfter(ShardedSchedules schedules, ShardedSchedules.Step stopAfter) {
        return schedules.afterStep(step -> {
            if (step == stopAfter) {
                throw new Stop();
            }
        });
    }

    /** The slots of a shard's fired jobs, from their idempotency keys ({@code schedule:<name>:<slot ms>}). */
    private static Set<Long> slots(Map<String, String> idempotency) {
        return idempotency.keySet().stream().map(key -> Long.parseLong(key.substring(key.lastIndexOf(':') + 1)))
                .collect(Collectors.toSet());
    }

    private static Schedule everyFiftyMs(String queue, String lane) {
        return Schedule.every(queue, "tick", Duration.ofMillis(50), "{}").inLane(lane);
    }

    private static Schedule hourly(String queue, String lane, String payload) {
        return Schedule.every(queue, "hourly", Duration.ofHours(1), payload).inLane(lane);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A fresh queue of 3 shards whose schedule "hourly" ({"v":1}) lives on shard 1. */
    private record OnShardOne(ShardLayout layout, ShardedSchedules schedules) {
        /** A put moving "hourly" ({"v":2}) to shard 2 whose caller stops after {@code step}, as a crash there would. */
        void moveToShardTwoStoppedAfter(ShardedSchedules.Step step) {
            Schedule toShardTwo = hourly(layout.queue(), ShardLanes.firstOn(layout, 2), "{\"v\":2}");
            assertThatThrownBy(() -> stoppedAfter(schedules, step).put(toShardTwo, "api")).isInstanceOf(Stop.class);
        }
    }

    /** {@link OnShardOne}, its schedule put by {@code source} ("api" or "config"). */
    private static OnShardOne hourlyOnShardOne(String source) {
        ShardedQueue queue = newQueue();
        ShardLayout layout = queue.layout();
        queue.schedules().put(hourly(layout.queue(), ShardLanes.firstOn(layout, 1), "{\"v\":1}"), source);
        return new OnShardOne(layout, queue.schedules());
    }

    private static ShardedQueue newQueue() {
        String name = "shmove-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
        return ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(name, 3));
    }
}
