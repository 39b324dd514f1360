package io.echomq.queue.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.RequestChecks;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/** The shard layout as a pure function: today's keys for shard 0, tags no queue can have, stable routing. */
class ShardLayoutTest {

    private static final List<String> QUEUES = List.of("orders", "q", "a.b-c_d", "Z9", "x".repeat(64));

    @Test
    void aQueueOfOneShardHasExactlyTodaysKeys() {
        for (String queue : QUEUES) {
            ShardLayout layout = ShardLayout.of(queue, 1);

            assertThat(layout.allKeys()).hasSize(1);
            assertThat(layout.keys(0).prefix()).isEqualTo(new QueueKeys(queue).prefix()).isEqualTo("echomq:{" + queue + "}:");
            assertThat(layout.shardOfJob("12345")).isZero();
            assertThat(layout.shardOfLane("tenant-7")).isZero();
        }
    }

    @Test
    void shardZeroOfEveryShardCountIsTodaysQueue() {
        for (int shards = 1; shards <= 8; shards++) {
            ShardLayout layout = ShardLayout.of("orders", shards);
            assertThat(layout.keys(0).prefix()).isEqualTo("echomq:{orders}:");
            assertThat(layout.keys(0).seq()).isEqualTo(new QueueKeys("orders").seq());
        }
    }

    @Test
    void noShardTagIsAQueueNameSoNoQueueCanMeetAShardsKeys() {
        Set<String> prefixes = new HashSet<>();
        for (String queue : QUEUES) {
            ShardLayout layout = ShardLayout.of(queue, 5);
            for (int s = 1; s < layout.shards(); s++) {
                String tag = hashTag(layout.keys(s));
                assertThatThrownBy(() -> RequestChecks.queueName(tag)).as("tag %s", tag)
                        .isInstanceOf(InvalidRequestException.class);
                assertThat(layout.keys(s).queue()).as("a shard's keys still name their queue").isEqualTo(queue);
            }
            layout.allKeys().forEach(keys -> assertThat(prefixes.add(keys.prefix())).as("prefix %s is unique", keys.prefix()).isTrue());
        }
    }

    @Test
    void shardsAreSpreadEvenlyOverTheSlots() {
        for (String queue : QUEUES) {
            for (int shards : new int[] {2, 3, 4, 7}) {
                ShardLayout layout = ShardLayout.of(queue, shards);
                int first = slot(layout.keys(0));
                for (int s = 1; s < shards; s++) {
                    int expected = (int) ((first + Math.round(s * 16384.0 / shards)) % 16384);
                    assertThat(slot(layout.keys(s))).as("slot of shard %d of %d of %s", s, shards, queue).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void theLayoutIsTheSameForEveryClient() {
        ShardLayout one = ShardLayout.of("orders", 3);
        ShardLayout other = ShardLayout.of("orders", 3);

        assertThat(other.allKeys()).extracting(QueueKeys::prefix).isEqualTo(one.allKeys().stream().map(QueueKeys::prefix).toList());
        for (int i = 0; i < 200; i++) {
            assertThat(other.shardOfLane("lane-" + i)).isEqualTo(one.shardOfLane("lane-" + i));
            assertThat(other.ownerOfKey("key-" + i)).isEqualTo(one.ownerOfKey("key-" + i));
        }
    }

    @Test
    void namedLanesSpreadOverEveryShard() {
        ShardLayout layout = ShardLayout.of("orders", 3);
        Map<Integer, Integer> lanesPerShard = new HashMap<>();
        IntStream.range(0, 3_000).forEach(i -> lanesPerShard.merge(layout.shardOfLane("tenant-" + i), 1, Integer::sum));

        assertThat(lanesPerShard).containsOnlyKeys(0, 1, 2);
        assertThat(lanesPerShard.values()).allSatisfy(count -> assertThat(count).isBetween(900, 1_100));
    }

    @Test
    void theDefaultLaneIsOnEveryShardAndNamedLanesOnOne() {
        ShardLayout layout = ShardLayout.of("orders", 3);

        assertThat(ShardLayout.pinsLane(NewJob.DEFAULT_LANE)).isFalse();
        assertThat(ShardLayout.pinsLane("tenant-1")).isTrue();
        assertThatThrownBy(() -> layout.shardOfLane(NewJob.DEFAULT_LANE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("every shard");
    }

    @Test
    void aJobIdNamesItsShard() {
        ShardLayout layout = ShardLayout.of("orders", 3);

        assertThat(layout.shardOfJob("3")).isZero();
        assertThat(layout.shardOfJob("7")).isEqualTo(1);
        assertThat(layout.shardOfJob("11")).isEqualTo(2);
        assertThat(layout.shardOfJob("9999999999999999999")).as("the longest id a job may have").isEqualTo(
                (int) (new java.math.BigInteger("9999999999999999999").mod(java.math.BigInteger.valueOf(3)).intValue()));
        assertThatThrownBy(() -> layout.shardOfJob("x1")).isInstanceOf(InvalidRequestException.class).hasMessageContaining("jobId");
    }

    @Test
    void aBadShardCountOrQueueNameIsRefusedNamingTheField() {
        assertThatThrownBy(() -> ShardLayout.of("orders", 0)).isInstanceOf(InvalidRequestException.class)
                .hasMessageStartingWith("shards").hasMessageContaining("between 1 and 64");
        assertThatThrownBy(() -> ShardLayout.of("orders", 65)).isInstanceOf(InvalidRequestException.class)
                .hasMessageStartingWith("shards");
        assertThatThrownBy(() -> ShardLayout.of("or#ders", 2)).isInstanceOf(InvalidRequestException.class)
                .hasMessageStartingWith("queue");
    }

    private static String hashTag(QueueKeys keys) {
        String prefix = keys.prefix();
        return prefix.substring(prefix.indexOf('{') + 1, prefix.indexOf('}'));
    }

    private static int slot(QueueKeys keys) {
        return JedisClusterCRC16.getSlot(keys.prefix());
    }
}
