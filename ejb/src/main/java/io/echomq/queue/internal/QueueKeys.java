package io.echomq.queue.internal;

import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The one place that names a queue's Valkey keys. Every key of queue {@code q} starts with
 * {@code echomq:{q}:}; the braces are a hash tag, so all of a queue's keys live in one slot
 * and every script runs unchanged on Valkey Cluster.
 *
 * <p>The queue name must already be validated (no braces, no colons).
 */
public final class QueueKeys {

    /**
     * The resource adapters' outbox gauges live under a hash tag no queue can have (a queue name
     * starts with a letter or digit), so they never meet a queue's keys, and in one slot.
     */
    private static final String OUTBOX_PREFIX = "echomq:{_outbox}:";

    /** Sorted set: the names of the outboxes that published gauges, scored by the last publication (ms). */
    public static final String OUTBOXES = OUTBOX_PREFIX + "sources";

    /** Hash: one outbox's gauges (depth, oldestAgeMs, updatedAtMs), expiring unless published again. */
    public static String outbox(String source) {
        return OUTBOX_PREFIX + "source:" + source;
    }

    /** Hash: one outbox's dead rows as its relays last reported them (count, and the oldest rows' fields), expiring unless published again. */
    public static String outboxDeadRows(String source) {
        return OUTBOX_PREFIX + "dead:" + source;
    }

    /** Hash: the admins' commands (retry, drop) on one outbox's dead rows, by row id, waiting for a relay of that outbox. */
    public static String outboxCommands(String source) {
        return OUTBOX_PREFIX + "commands:" + source;
    }

    private final String queue;
    private final String hashTag;
    private final String prefix;

    public QueueKeys(String queue) {
        this(queue, queue);
    }

    /**
     * The keys of one shard of a sharded queue: every key under {@code echomq:{hashTag}:}, while
     * {@link #queue()} stays the queue's name. Only {@code io.echomq.queue.shard.ShardLayout}
     * picks the tag (the queue's own name for shard 0, a tag no queue name can be for the others).
     */
    public QueueKeys(String queue, String hashTag) {
        this.queue = queue;
        this.hashTag = hashTag;
        this.prefix = "echomq:{" + hashTag + "}:";
    }

    public String queue() {
        return queue;
    }

    /** The hash tag every key here shares: the queue's name, or a shard's tag. */
    public String hashTag() {
        return hashTag;
    }

    /** The cluster slot of every key here: its hash tag's. */
    public int slot() {
        return JedisClusterCRC16.getSlot(prefix);
    }

    /** The common prefix, handed to scripts that derive job and lane keys themselves. */
    public String prefix() {
        return prefix;
    }

    /** Hash: one job's fields. */
    public String job(String id) {
        return prefix + "job:" + id;
    }

    /** List: one job's history, oldest event first (the last 64). */
    public String history(String id) {
        return prefix + "job:" + id + ":log";
    }

    /** Counter that mints job ids in order. */
    public String seq() {
        return prefix + "seq";
    }

    /** List: the lanes that have pending work, rotated as claims serve them. */
    public String ring() {
        return prefix + "lanes";
    }

    /** Sorted set of one lane's pending job ids, scored by id (mint order) shifted by priority (see push_pending). */
    public String pending(String lane) {
        return prefix + "pending:" + lane;
    }

    /** Sorted set of delayed job ids, scored by due time (ms, server clock). */
    public String delayed() {
        return prefix + "delayed";
    }

    /** Sorted set of leased job ids, scored by lease deadline (ms, server clock). */
    public String active() {
        return prefix + "active";
    }

    /** Sorted set of completed job ids, scored by completion time. */
    public String completed() {
        return prefix + "completed";
    }

    /** Sorted set of dead-lettered job ids, scored by time of death. */
    public String dead() {
        return prefix + "dead";
    }

    /** Sorted set of cancelled job ids, scored by time of cancellation. */
    public String cancelled() {
        return prefix + "cancelled";
    }

    /** Sorted set of flow parents waiting for their children, scored by creation time (ms, server clock). */
    public String waiting() {
        return prefix + "waiting";
    }

    /**
     * Hash: one flow parent's children: {@code spec:<i>} (how to make child i), {@code child:<i>}
     * (the child made, {@code <queue>\n<id>\n<created ms>}) and {@code settled:<i>} (its outcome).
     */
    public String flow(String id) {
        return prefix + "job:" + id + ":flow";
    }

    /** Hash: job id to the settlement notice its parent has not yet acknowledged (see flow-notice-ack). */
    public String notices() {
        return prefix + "notices";
    }

    /** Hash: parent id to the children a failed or cancelled flow parent still has to cancel, one per line. */
    public String childCancels() {
        return prefix + "child-cancels";
    }

    /** Hash: idempotency key to job id. */
    public String idempotency() {
        return prefix + "idem";
    }

    /**
     * Sorted set: lanes with pending jobs that their lane's cap or rate limit holds out of the
     * ring, scored by when the claim looks at them again (ms, server clock).
     */
    public String held() {
        return prefix + "held";
    }

    /**
     * Stream: the queue's job events, one entry per state change, capped (see {@code set-events}
     * and {@code includes/log_event.lua}).
     */
    public String events() {
        return prefix + "events";
    }

    /**
     * Hash, on a key's owner shard of a sharded queue: idempotency ({@code kind} {@code idem}) or
     * dedupe ({@code dedupe}) key -> its home shard, token and state (see {@code key-home-reserve}).
     */
    public String homes(String kind) {
        return prefix + "homes:" + kind;
    }

    /** Counter, on an owner shard of a sharded queue: the tokens of its key-home reservations. */
    public String homeSeq() {
        return prefix + "home_seq";
    }

    /** Hash, on a shard of a sharded queue: key -> the highest token fenced off from making its job here (see {@code key-home-release}). */
    public String fence(String kind) {
        return prefix + "fence:" + kind;
    }

    /** Hash, on a shard of a sharded queue: owner shard -> every token of that owner up to this one is fenced off here. */
    public String fenceFloor() {
        return prefix + "fence-floor";
    }

    /** Hash, on shard 0 of a sharded queue: schedule name -> the shard it lives on (see {@code schedule-home}). */
    public String scheduleHomes() {
        return prefix + "schedule-homes";
    }

    /** Hash, on shard 0 of a sharded queue: schedule name -> the last token its put or remove was handed ({@code schedule-home}). */
    public String scheduleHomeTokens() {
        return prefix + "schedule-home-tokens";
    }

    /** Hash, on shard 0 of a sharded queue: schedule name -> its unfinished move to another shard ({@code schedule-home}, S1-S4). */
    public String scheduleMoves() {
        return prefix + "schedule-moves";
    }

    /** Hash: queue-wide flags (paused) and limits (see {@code set-limits}). */
    public String meta() {
        return prefix + "meta";
    }

    /** Hash: the engine keeping house for the queue and its token; expires with its lease (see {@code maintenance-lease}). */
    public String maintenanceLease() {
        return prefix + "maintenance";
    }

    /**
     * String: the server time (ms) of the last idle turn handed out; expires one idle poll after
     * it (see {@code take_idle_turn}, which builds this name from the prefix).
     */
    public String idleTurns() {
        return prefix + "idle-turns";
    }

    /** Sorted set: the queue's schedule names, scored by next slot (ms, server clock; the anchor while unplanned, +inf while paused). */
    public String schedules() {
        return prefix + "schedules";
    }

    /** Hash: one schedule's definition and state. */
    public String schedule(String name) {
        return prefix + "schedule:" + name;
    }

    /** List: one schedule's firings and skips, oldest first (the last 64). */
    public String scheduleHistory(String name) {
        return prefix + "schedule:" + name + ":log";
    }
}
