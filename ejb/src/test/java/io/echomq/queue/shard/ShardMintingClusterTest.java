package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.testkit.RealServices;
import io.echomq.tracing.JobTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * The scripts that make jobs besides enqueue mint ids that name their shard on a sharded queue
 * (docs/SHARDING.md 1, 3.3, 3.4): a schedule fired on a shard and a flow's job added on a shard
 * get ids {@code n × N + s}, so every call by id finds them there.
 */
class ShardMintingClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();

    private static ShardLayout newLayout() {
        ShardLayout layout = ShardLayout.of("smq-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet(), 3);
        ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout);
        return layout;
    }

    @Test
    void aScheduleFiredOnAShardMakesJobsWhoseIdsNameThatShard() {
        ShardLayout layout = newLayout();
        QueueClient shard = QueueClient.connectShard(redis, QueueSettings.DEFAULT, ReplicaWait.NONE, JobTelemetry.OFF, layout, 2);
        ScheduleClient schedules = shard.schedules();
        schedules.put(Schedule.every(layout.queue(), "tick", Duration.ofMillis(10), "{}"), "api");
        QueueKeys keys = layout.keys(2);

        Awaitility.await("a slot fired on shard 2").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> schedules.tick(layout.queue()).fired() > 0);

        List<String> made = new ArrayList<>(redis.hvals(keys.idempotency()));
        assertThat(made).as("the fired slots' jobs on shard 2").isNotEmpty()
                .allSatisfy(id -> assertThat(layout.shardOfJob(id)).as("job %s", id).isEqualTo(2));
        assertThat(redis.exists(layout.keys(0).schedule("tick"))).as("the schedule lives on the shard it was put on").isFalse();
    }

    @Test
    void aFlowsJobAddedOnAShardGetsAnIdNamingThatShard() {
        ShardLayout layout = newLayout();
        QueueKeys keys = layout.keys(1);
        ScriptRunner scripts = new ScriptRunner(redis, ReplicaWait.NONE);
        List<String> ids = new ArrayList<>();
        for (int children = 0; children < 2; children++) {
            List<String> args = new ArrayList<>(List.of(keys.prefix(), "{}", "3", "default", "4", "", "", "", Integer.toString(children)));
            for (int i = 0; i < children; i++) {
                args.add("{\"queue\":\"" + layout.queue() + "\",\"payload\":\"c\"}");
            }
            args.addAll(List.of("3", "1"));
            ids.add(io.echomq.queue.internal.Replies.flowAdded(layout.queue(), scripts.run(Script.FLOW_ADD, keys, null, args)).id());
        }

        assertThat(ids).as("a plain job and a parent, added on shard 1").allSatisfy(id -> {
            assertThat(layout.shardOfJob(id)).as("job %s", id).isEqualTo(1);
            assertThat(redis.exists(keys.job(id))).isTrue();
        });
    }

    @Test
    void aShardedQueuesSchedulesLiveOnTheirLanesShardsUnderNamesUniqueOverTheShards() {
        ShardLayout layout = ShardLayout.of("smq-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet(), 3);
        ShardedQueue queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout);
        String laneOn1 = ShardLanes.firstOn(layout, 1);
        String laneOn2 = ShardLanes.firstOn(layout, 2);
        queue.schedules().put(Schedule.every(layout.queue(), "tick", Duration.ofMillis(10), "{}").inLane(laneOn1), "api");
        queue.schedules().put(Schedule.every(layout.queue(), "laneless", Duration.ofHours(1), "{}"), "api");

        assertThat(redis.exists(layout.keys(1).schedule("tick"))).as("on its lane's shard").isTrue();
        assertThat(redis.exists(layout.keys(0).schedule("laneless"))).as("a schedule of the default lane on shard 0").isTrue();
        assertThat(queue.schedules().get(layout.queue(), "tick")).isPresent();
        assertThat(queue.schedules().list(layout.queue())).extracting(view -> view.definition().name()).containsExactly("laneless", "tick");
        assertThat(queue.schedules().put(Schedule.every(layout.queue(), "tick", Duration.ofMillis(10), "{}").inLane(laneOn2), "api"))
                .as("the same name from another shard's lane moves it there").isEqualTo(ScheduleClient.PutResult.REPLACED);
        assertThat(redis.hexists(layout.keys(2).schedule("tick"), "version")).as("on its new lane's shard").isTrue();
        assertThat(redis.hexists(layout.keys(1).schedule("tick"), "version")).as("none left on shard 1 (only the move's fence)").isFalse();
        assertThat(queue.schedules().list(layout.queue())).extracting(view -> view.definition().name()).containsExactly("laneless", "tick");
        Awaitility.await("a slot fired").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> queue.schedules().tick(layout.queue()).fired() > 0);
        assertThat(redis.hvals(layout.keys(2).idempotency())).as("the fired jobs, on shard 2").isNotEmpty()
                .allSatisfy(id -> assertThat(layout.shardOfJob(id)).isEqualTo(2));

        assertThat(queue.schedules().remove(layout.queue(), "tick")).isTrue();
        assertThat(queue.schedules().put(Schedule.every(layout.queue(), "tick", Duration.ofHours(1), "{}").inLane(laneOn1), "api"))
                .as("removed, the name may be put on any shard").isEqualTo(ScheduleClient.PutResult.CREATED);
        assertThat(redis.exists(layout.keys(1).schedule("tick"))).isTrue();
        assertThat(redis.hexists(layout.keys(2).schedule("tick"), "version")).as("none left on shard 2 (only the remove's fence)").isFalse();
    }
}
