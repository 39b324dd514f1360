package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.Enqueued;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.RealServices;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * A change of a queue's shard count after keyed submissions took the key homes (docs/SHARDING.md,
 * 3.1 and 10): refused while a key home is recorded, since its entry names shards by the old
 * layout; once made, the old layout's fences refuse none of the new layout's submissions.
 */
class ShardCountWithKeyHomesClusterTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();

    @Test
    void aRecordedKeyHomeRefusesAChangeOfTheShardCountUntilTheSweeperForgetsIt() {
        ShardLayout three = ShardLayout.of(newQueue(), 3);
        String queue = three.queue();
        ShardedQueue sharded = ShardedQueue.connect(redis, QueueSettings.DEFAULT, three);
        String key = first("key-", i -> three.ownerOfKey("key-" + i) == 0);
        Enqueued made = sharded.submissions().enqueue(queue, NewJob.of("p").inLane(ShardLanes.firstOn(three, 1)).withIdempotencyKey(key));
        sharded.admin().cancel(queue, made.id());
        sharded.admin().remove(queue, made.id());

        assertThatThrownBy(() -> ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(queue, 2)))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + queue + ".shards: queue '" + queue + "' cannot have 2 shards now: "
                        + "its shard 0 of 3 records 1 key homes")
                .hasMessageContaining("the key-homes duty deletes each once its job is gone");
        assertThat(redis.hget(new QueueKeys(queue).meta(), "id_stride")).as("the layout kept").isEqualTo("3");

        assertThat(sharded.keyHomeSweeper().sweep(Duration.ZERO).forgotten()).isEqualTo(1);
        assertThat(ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(queue, 2)).layout().shards())
                .as("changed once the sweeper forgot the home").isEqualTo(2);
    }

    @Test
    void keyedSubmissionsAfterAChangeOfTheShardCountAreNotRefusedByTheOldLayoutsFences() {
        ShardLayout three = ShardLayout.of(newQueue(), 3);
        String queue = three.queue();
        ShardedQueue sharded = ShardedQueue.connect(redis, QueueSettings.DEFAULT, three);
        // More tokens of owner 1 than a submission takes rounds, so a floor left over would refuse every one of them.
        List<String> oldKeys = IntStream.range(0, 100_000).mapToObj(i -> "old-" + i).filter(k -> three.ownerOfKey(k) == 1)
                .limit(12).toList();
        for (String key : oldKeys) {
            Enqueued made = sharded.submissions().enqueue(queue, NewJob.of("p").inLane(ShardLanes.firstOn(three, 0)).withIdempotencyKey(key));
            sharded.admin().cancel(queue, made.id());
            sharded.admin().remove(queue, made.id());
        }
        sharded.keyHomeSweeper().sweep(Duration.ZERO);
        assertThat(Long.parseLong(redis.hget(three.keys(0).fenceFloor(), "1"))).as("shard 0 fences owner 1's tokens so far")
                .isGreaterThanOrEqualTo(oldKeys.size());

        ShardLayout two = ShardLayout.of(queue, 2);
        ShardedQueue changed = ShardedQueue.connect(redis, QueueSettings.DEFAULT, two);
        String key = first("new-", i -> two.ownerOfKey("new-" + i) == 1);
        Enqueued made = changed.submissions().enqueue(queue, NewJob.of("p").inLane(ShardLanes.firstOn(two, 0)).withIdempotencyKey(key));

        assertThat(made.created()).as("a key owned by the new layout's shard 1, on a lane of shard 0").isTrue();
        assertThat(KeyHomesClusterTest.shardsHolding(redis, two, key)).containsExactly(0);
        assertThat(changed.submissions().enqueue(queue, NewJob.of("p").inLane(ShardLanes.firstOn(two, 0)).withIdempotencyKey(key)).id())
                .as("the key names its one job").isEqualTo(made.id());
    }


    private static String first(String stem, IntPredicate wanted) {
        return stem + IntStream.range(0, 10_000).filter(wanted).findFirst().orElseThrow();
    }

    private static String newQueue() {
        return "shkeys-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
    }
}
