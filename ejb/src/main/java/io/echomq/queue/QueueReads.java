package io.echomq.queue;

import static io.echomq.queue.internal.ValkeyCommands.read;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.internal.SlotMasters;
import io.echomq.queue.limits.LimitsInForce;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.queue.shard.ShardCountRefusedException;
import io.echomq.queue.shard.ShardLayouts;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.StreamEntry;

/**
 * What the queue holds, read without changing it: jobs, pages of them, their history, counts
 * and limits, for consoles, the API and maintenance passes. A job that changes state during a
 * read may show in its old state or not at all; nothing here is a lease. Thread-safe; obtained
 * from {@link QueueClient#reads()}.
 */
public final class QueueReads {

    private final UnifiedJedis redis;
    private final ScriptRunner scripts;
    /** A queue's keys after checking its name: the queue's own, or one shard's for a shard's client (docs/SHARDING.md). */
    private final Function<String, QueueKeys> keysOf;
    /** False for a shard's client: only a client that takes every queue for one of one shard checks the queue's layout. */
    private final boolean unshardedClient;

    QueueReads(UnifiedJedis redis, ScriptRunner scripts, Function<String, QueueKeys> keysOf, boolean unshardedClient) {
        this.redis = redis;
        this.scripts = scripts;
        this.keysOf = keysOf;
        this.unshardedClient = unshardedClient;
    }

    /** One job as the queue holds it now, or empty when there is no such job. */
    public Optional<JobView> job(String queue, String jobId) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.jobId(jobId);
        return read(() -> JobPages.view(queue, jobId, redis.hgetAll(keys.job(jobId))));
    }

    /** The most jobs one page lists. */
    public static final int MAX_PAGE = 500;

    /**
     * A page of the queue's jobs in {@code state}, oldest first, after {@code cursor} (empty for
     * the first page). A job that changes state meanwhile may show on no page.
     */
    public JobPage jobs(String queue, JobState state, Optional<String> cursor, int limit) {
        JobPages pages = pages(queue, state, limit);
        return read(() -> pages.page(state, cursor, limit));
    }

    /**
     * The places of the next {@code limit} jobs in {@code state} after {@code cursor}, in the order
     * {@link #jobs} lists them, without the jobs: for a reader that merges the pages of several
     * shards of one queue by place (docs/SHARDING.md, section 8). Each place's
     * {@link JobPosition#cursor()} is the cursor of a page that ends with that job.
     */
    public List<JobPosition> positions(String queue, JobState state, Optional<String> cursor, int limit) {
        JobPages pages = pages(queue, state, limit);
        return read(() -> pages.positions(state, cursor, limit));
    }

    /** The pages of a queue, after checking a page request's queue, limit and state. */
    private JobPages pages(String queue, JobState state, int limit) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.range("limit", limit, 1, MAX_PAGE);
        if (state == null) {
            throw new InvalidRequestException("state", "is required");
        }
        return new JobPages(redis, keys);
    }

    /** These jobs as the queue holds them now, in the order given; a job that is gone is left out. */
    public List<JobView> jobs(String queue, List<String> jobIds) {
        QueueKeys keys = keysOf.apply(queue);
        jobIds.forEach(RequestChecks::jobId);
        return jobIds.isEmpty() ? List.of() : read(() -> new JobPages(redis, keys).views(jobIds));
    }

    /**
     * A job's history, oldest first: each claim (attempt, worker, lease deadline), heartbeat,
     * settlement, refusal of a stale worker, reap and operator action, as the scripts recorded
     * them on the server clock. Empty when there is no such job.
     */
    public List<JobEvent> history(String queue, String jobId) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.jobId(jobId);
        return read(() -> redis.lrange(keys.history(jobId), 0, -1).stream().map(JobEvent::parse).toList());
    }

    /** The queue's counts by state, in one script call so that they add up. */
    public QueueStats stats(String queue) {
        QueueKeys keys = keysOf.apply(queue);
        return Replies.stats(queue, scripts.run(Script.STATS, keys, null, List.of(keys.prefix())));
    }

    /**
     * Up to {@code limit} ids of jobs in {@code state} (not pending) whose score (the time they
     * entered the state) is after {@code afterScore}, oldest first, with their scores: a cursor
     * for maintenance passes that walk a whole set a batch at a time.
     */
    public List<Map.Entry<String, Long>> idsInState(String queue, JobState state, long afterScore, int limit) {
        QueueKeys keys = keysOf.apply(queue);
        return read(() -> redis.zrangeByScoreWithScores(JobPages.setOf(keys, state), "(" + afterScore, "+inf", 0, limit).stream()
                .map(t -> Map.entry(t.getElement(), (long) t.getScore()))
                .toList());
    }

    /**
     * Which of these jobs of {@code queue} Valkey still holds, as those very jobs (same creation
     * time), and in which state: for the effect store's retention.
     */
    public Map<String, JobState> statesOf(String queue, List<JobIdentity> jobs) {
        QueueKeys keys = keysOf.apply(queue);
        return jobs.isEmpty() ? Map.of() : read(() -> new JobPages(redis, keys).statesOf(jobs));
    }

    /** The most entries one {@link #events} read returns. */
    public static final int MAX_EVENTS_PAGE = 1_000;

    /**
     * The queue's job events after entry {@code after} (exclusive; "0" for the oldest the stream
     * still keeps) that match {@code filter}, oldest first, reading at most {@code limit} entries
     * without waiting: the resumable read behind the HTTP event stream.
     *
     * @throws InvalidRequestException naming {@code from} for an id that is not a stream entry id,
     *                                 or {@code limit}
     * @throws ShardCountRefusedException when the queue is sharded (see {@link #follow})
     */
    public EventPage events(String queue, String after, EventFilter filter, int limit) {
        QueueKeys keys = keysOf.apply(queue);
        refuseShardedQueue(queue, "read");
        String start = entryId(after);
        RequestChecks.range("limit", limit, 1, MAX_EVENTS_PAGE);
        List<StreamEntry> entries = read(() -> redis.xrange(keys.events(), "(" + start, "+", limit));
        List<QueueEvent> matching = entries.stream().map(e -> QueueEvent.of(e.getID().toString(), e.getFields()))
                .filter(filter::matches).toList();
        return new EventPage(matching, entries.isEmpty() ? start : entries.get(entries.size() - 1).getID().toString());
    }

    /**
     * Follows the queue's job events after entry {@code after} (exclusive; "0" for the oldest the
     * stream still keeps), or after the newest entry there is now when {@code after} is empty:
     * a blocking iterator (see {@link EventIterator}). Close it to stop following. This client
     * follows the queue's one stream; a sharded queue, whose events are in one stream per shard, is
     * followed over every shard by {@code QueueShards.follow} (docs/SHARDING.md, section 8), and
     * refused here rather than followed on shard 0 alone.
     *
     * @throws InvalidRequestException    naming {@code from} for an id that is not a stream entry id
     * @throws ShardCountRefusedException when shard 0 of the queue records more than one shard
     */
    public EventIterator follow(String queue, Optional<String> after, EventFilter filter) {
        QueueKeys keys = keysOf.apply(queue);
        refuseShardedQueue(queue, "follow");
        String start = after.isPresent() ? entryId(after.get()) : lastEventId(queue);
        return new StreamFollower(redis, keys, start, filter);
    }

    /** A read of one stream would show a sharded queue's shard 0 alone, as if it were the queue. */
    private void refuseShardedQueue(String queue, String what) {
        if (!unshardedClient) {
            return;
        }
        int shards = ShardLayouts.recordedShards(redis, queue);
        if (shards > 1) {
            throw new ShardCountRefusedException("queue '" + queue + "' is laid out over " + shards + " shards, each with its own "
                    + "event stream, and this client reads one: " + what + " its events through QueueShards (the engine's) or "
                    + "ShardedQueue.reads() (docs/SHARDING.md, 8)");
        }
    }

    /** The id of the newest entry of the queue's job-event stream, or "0-0" when it has none: "from now on". */
    public String lastEventId(String queue) {
        QueueKeys keys = keysOf.apply(queue);
        List<StreamEntry> newest = read(() -> redis.xrevrange(keys.events(), "+", "-", 1));
        return newest.isEmpty() ? "0-0" : newest.get(0).getID().toString();
    }

    /** How many entries the queue's job-event stream holds now (its cap bounds it, see {@link QueueAdmin#setEventStream}). */
    public long eventStreamLength(String queue) {
        QueueKeys keys = keysOf.apply(queue);
        return read(() -> redis.xlen(keys.events()));
    }

    /** A checked entry id in full form: a bare time {@code <ms>} is {@code <ms>-0}. */
    private static String entryId(String id) {
        RequestChecks.eventId("from", id);
        return id.contains("-") ? id : id + "-0";
    }

    /**
     * The creation context stored with each of these jobs ({@code trace}, written by the enqueue
     * scripts when the submission was traced), one per id in order: null for a job without one.
     */
    public List<String> creationContexts(String queue, List<String> jobIds) {
        QueueKeys keys = keysOf.apply(queue);
        if (jobIds.size() == 1) {
            return Collections.singletonList(read(() -> redis.hget(keys.job(jobIds.get(0)), "trace")));
        }
        return read(() -> {
            try (AbstractPipeline pipeline = redis.pipelined()) {
                List<Response<String>> replies = jobIds.stream().map(id -> pipeline.hget(keys.job(id), "trace")).toList();
                pipeline.sync();
                return replies.stream().map(Response::get).toList();
            }
        });
    }

    /** The queue's caps and rate limits as the claim reads them. */
    public QueueLimits limits(String queue) {
        return limitsInForce(queue).limits();
    }

    /**
     * Which master serves each slot now, as Valkey reports it, asked of the node serving the
     * queue's slot (see {@link SlotMasters}): where an operator finds the queue, or each of its shards.
     */
    public SlotMasters slotMasters(String queue) {
        QueueKeys keys = keysOf.apply(queue);
        return read(() -> SlotMasters.read(redis, keys));
    }

    /** The limits and their source, in one read. */
    public LimitsInForce limitsInForce(String queue) {
        QueueKeys keys = keysOf.apply(queue);
        return LimitsInForce.of(read(() -> redis.hmget(keys.meta(), LimitsInForce.META_FIELDS.toArray(String[]::new))));
    }
}
