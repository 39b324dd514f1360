package io.echomq.queue.shard;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.RequestChecks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Where each part of a queue of N shards lives (docs/SHARDING.md, sections 1 and 2): the one
 * place that maps a queue and its shard count to each shard's keys, and a lane, a job id or a
 * submission's key to its shard. A pure function of the queue's name and N, so every client
 * names the same keys without reading anything first. Immutable and thread-safe.
 *
 * <p>Shard 0 is the queue as it is without shards ({@code echomq:{q}:}), so a queue of one shard
 * is exactly today's queue. Shard s of the others is under the hash tag {@code q#s.k}: a queue name
 * has no {@code #} ({@link RequestChecks#queueName}), so no queue's keys can meet a shard's; the
 * salt {@code k} places the shard's slot {@code s × 16384 / N} slots after shard 0's, which on a
 * cluster whose slots are split evenly over N masters puts each shard on its own master.
 */
public final class ShardLayout {

    /** The most shards a queue may have: a shard per master is the point, more only adds cost. */
    public static final int MAX_SHARDS = 64;

    private static final int SLOTS = 16_384;
    /** Salts tried for a shard's tag; an exact slot is found within about 16,384 of them (1 in e^64 not at all). */
    private static final int MAX_SALT = 1 << 20;

    private final String queue;
    private final List<QueueKeys> shards;

    private ShardLayout(String queue, List<QueueKeys> shards) {
        this.queue = queue;
        this.shards = shards;
    }

    /**
     * The layout of {@code queue} over {@code shards} shards.
     *
     * @throws InvalidRequestException naming {@code queue} or {@code shards}
     */
    public static ShardLayout of(String queue, int shards) {
        RequestChecks.queueName(queue);
        RequestChecks.range("shards", shards, 1, MAX_SHARDS);
        int firstSlot = JedisClusterCRC16.getSlot(queue);
        List<QueueKeys> keys = new ArrayList<>(shards);
        keys.add(new QueueKeys(queue));
        for (int s = 1; s < shards; s++) {
            int target = (int) ((firstSlot + Math.round((double) s * SLOTS / shards)) % SLOTS);
            keys.add(new QueueKeys(queue, tagNear(queue, s, target)));
        }
        return new ShardLayout(queue, List.copyOf(keys));
    }

    /** The tag {@code q#s.k} with the smallest salt k whose slot is {@code target}, else the closest one tried. */
    private static String tagNear(String queue, int shard, int target) {
        String stem = queue + "#" + shard + ".";
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (int salt = 0; salt < MAX_SALT; salt++) {
            String tag = stem + salt;
            int gap = Math.abs(JedisClusterCRC16.getSlot(tag) - target);
            int distance = Math.min(gap, SLOTS - gap);
            if (distance == 0) {
                return tag;
            }
            if (distance < bestDistance) {
                best = tag;
                bestDistance = distance;
            }
        }
        return best;
    }

    public String queue() {
        return queue;
    }

    /**
     * Checks that {@code name} is this layout's queue: a client of a sharded queue serves that one
     * queue, and another name is the caller's mistake, named as such.
     *
     * @throws InvalidRequestException naming {@code queue}
     */
    public String checkQueue(String name) {
        if (!queue.equals(RequestChecks.queueName(name))) {
            throw new InvalidRequestException("queue", "is '" + name + "', but this client serves the sharded queue '" + queue + "'");
        }
        return name;
    }

    /** N, the number of shards. */
    public int shards() {
        return shards.size();
    }

    /** The keys of shard {@code shard} (0 to N − 1); shard 0's are the unsharded queue's. */
    public QueueKeys keys(int shard) {
        return shards.get(shard);
    }

    /** Every shard's keys, shard 0 first. */
    public List<QueueKeys> allKeys() {
        return shards;
    }

    /**
     * Whether {@code lane} belongs to one shard. Every named lane does; the default lane (a job
     * without a lane) exists on every shard, so that a queue without lanes still spreads.
     */
    public static boolean pinsLane(String lane) {
        return !NewJob.DEFAULT_LANE.equals(lane);
    }

    /**
     * The shard a named lane lives on, so that its order, priorities, cap and rate stay exact.
     *
     * @throws IllegalArgumentException for the default lane, which is on every shard (see {@link #pinsLane})
     */
    public int shardOfLane(String lane) {
        if (!pinsLane(lane)) {
            throw new IllegalArgumentException("the lane '" + lane + "' is on every shard of queue '" + queue + "'");
        }
        return bucket(lane);
    }

    /**
     * The shard holding a job: shard s of N mints ids {@code n × N + s}, so the id names it.
     *
     * @throws InvalidRequestException naming {@code jobId} when it is no job id
     */
    public int shardOfJob(String jobId) {
        long id = Long.parseUnsignedLong(RequestChecks.jobId(jobId));
        return (int) Long.remainderUnsigned(id, shards.size());
    }

    /** The owner shard of an idempotency or dedupe key, where its home is recorded (docs/SHARDING.md, 3.1). */
    public int ownerOfKey(String key) {
        return bucket(key);
    }

    /** A stable spread of a name over the shards: CRC32 of its UTF-8 bytes, modulo N. */
    private int bucket(String name) {
        CRC32 crc = new CRC32();
        crc.update(name.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % shards.size());
    }

    @Override
    public String toString() {
        return "ShardLayout[" + queue + " over " + shards.size() + " shards]";
    }
}
