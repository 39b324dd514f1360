package io.echomq.queue.shard;

import io.echomq.queue.EventFilter;
import io.echomq.queue.EventIterator;
import io.echomq.queue.EventPage;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobEvent;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobPosition;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueReads;
import io.echomq.queue.QueueStats;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.SlotMasters;
import io.echomq.queue.limits.LimitsInForce;
import io.echomq.queue.limits.QueueLimits;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.ToIntFunction;
import java.util.stream.IntStream;
import redis.clients.jedis.StreamEntryID;

/**
 * Reads of a sharded queue that show one queue (docs/SHARDING.md, section 8): a job by the shard
 * its id names, counts summed over the shards, pages and the job-event stream merged over the
 * shards with a cursor that joins one position per shard, the limits from shard 0 alone. Each
 * shard's part is today's read there, so the same caveat holds: a job that changes state during a
 * read may show in its old state. The job-event stream is also followed blocking over every shard
 * ({@link #follow}). Thread-safe.
 */
public final class ShardedReads {

    private final ShardLayout layout;
    private final List<QueueClient> shards;
    private final ShardMeta meta;

    ShardedReads(ShardLayout layout, List<QueueClient> shards, ShardMeta meta) {
        this.layout = layout;
        this.shards = shards;
        this.meta = meta;
    }

    /** Joins the shards' positions in a cursor; a shard not started yet has an empty one. */
    private static final String CURSOR_SEPARATOR = ",";

    /**
     * A page of the queue's jobs in {@code state} (see {@link QueueReads#jobs}): every shard's next
     * jobs after its own position, merged by place (score, then id) and cut at {@code limit}; the
     * cursor carries each shard's position, moved past the jobs this page took from it. So a walk
     * of pages lists every job that stays in the state exactly once, whichever shard holds it and
     * however the shards change meanwhile (a job that enters the state behind a shard's position is
     * not listed, as on one shard).
     *
     * @throws InvalidRequestException naming {@code cursor} for one this listing did not return
     */
    public JobPage jobs(String queue, JobState state, Optional<String> cursor, int limit) {
        List<Optional<String>> after = positionsIn(cursor.orElse(""));
        List<ShardPosition> merged = new ArrayList<>();
        for (int shard = 0; shard < shards.size(); shard++) {
            for (JobPosition position : shards.get(shard).reads().positions(queue, state, after.get(shard), limit)) {
                merged.add(new ShardPosition(shard, position));
            }
        }
        merged.sort(Comparator.comparing(ShardPosition::position, JobPosition.LISTING_ORDER));
        List<ShardPosition> page = merged.subList(0, Math.min(limit, merged.size()));
        List<Optional<String>> next = new ArrayList<>(after);
        page.forEach(taken -> next.set(taken.shard(), Optional.of(taken.position().cursor())));
        Map<String, JobView> views = new HashMap<>();
        byShard(page, ShardPosition::shard).forEach((shard, taken) -> shards.get(shard).reads()
                .jobs(queue, taken.stream().map(t -> t.position().jobId()).toList()).forEach(view -> views.put(view.id(), view)));
        List<JobView> jobs = page.stream().map(taken -> views.get(taken.position().jobId())).filter(Objects::nonNull).toList();
        return new JobPage(queue, state, jobs, page.size() == limit ? Optional.of(joined(next)) : Optional.empty());
    }

    private record ShardPosition(int shard, JobPosition position) {
    }

    private List<Optional<String>> positionsIn(String cursor) {
        if (cursor.isEmpty()) {
            return new ArrayList<>(Collections.nCopies(shards.size(), Optional.empty()));
        }
        List<String> parts = Arrays.asList(cursor.split(CURSOR_SEPARATOR, -1));
        if (parts.size() != shards.size()) {
            throw new InvalidRequestException("cursor", "is not a cursor this listing returned");
        }
        return parts.stream().map(part -> part.isEmpty() ? Optional.<String>empty() : Optional.of(part)).toList();
    }

    private static String joined(List<Optional<String>> positions) {
        return String.join(CURSOR_SEPARATOR, positions.stream().map(p -> p.orElse("")).toList());
    }

    /**
     * The queue's job events after {@code after} that match {@code filter} (see
     * {@link QueueReads#events}), merged from every shard's stream by entry id (each shard's own
     * clock). {@code after} is a resume point this method returned ({@link EventPage#lastRead()}:
     * one entry id per shard, joined), or one entry id for every shard ("0": from the oldest kept).
     * Each shard is read for at most {@code limit} entries; the page ends at the earliest last entry
     * of a shard that had more, so within the page and from page to page the entries run in id
     * order as far as the shards' clocks agree, and no entry is skipped or given twice.
     *
     * @throws InvalidRequestException naming {@code from} for a resume point that is not one, or {@code limit}
     */
    public EventPage events(String queue, String after, EventFilter filter, int limit) {
        List<String> from = eventPositionsIn("from", after);
        List<List<QueueEvent>> read = new ArrayList<>();
        StreamEntryID end = null;
        for (int shard = 0; shard < shards.size(); shard++) {
            List<QueueEvent> entries = shards.get(shard).reads().events(queue, from.get(shard), EventFilter.ALL, limit).events();
            read.add(entries);
            if (entries.size() == limit) {
                StreamEntryID last = new StreamEntryID(entries.get(entries.size() - 1).id());
                end = end == null || last.compareTo(end) < 0 ? last : end;
            }
        }
        List<QueueEvent> merged = new ArrayList<>();
        List<String> lastRead = new ArrayList<>(from);
        for (int shard = 0; shard < shards.size(); shard++) {
            for (QueueEvent entry : read.get(shard)) {
                if (end != null && new StreamEntryID(entry.id()).compareTo(end) > 0) {
                    break;
                }
                lastRead.set(shard, entry.id());
                if (filter.matches(entry)) {
                    merged.add(entry);
                }
            }
        }
        merged.sort(Comparator.comparing(entry -> new StreamEntryID(entry.id())));
        return new EventPage(List.copyOf(merged), resumePoint(lastRead));
    }

    /**
     * Follows the queue's job events on every shard, blocking (see {@link EventIterator}): each
     * shard's stream after its own entry id of {@code after} (a resume point as {@link #events}
     * takes it, the HTTP event stream's ids included), or after every shard's newest entry now when
     * {@code after} is empty. Each entry is handed out as soon as its shard's blocking read sees it,
     * in order within its shard; {@link EventIterator#lastRead()} is a resume point of every shard,
     * for this method, {@link #events} or the HTTP event stream. Holds a reader thread and, while it
     * waits, one connection per shard until closed.
     *
     * @throws InvalidRequestException naming {@code from} for a resume point that is not one
     */
    public EventIterator follow(String queue, Optional<String> after, EventFilter filter) {
        List<String> from = after.isPresent() ? eventPositionsIn("from", after.get()) : newestEntries(queue);
        return ShardedFollower.start(queue, shards, from, filter);
    }

    /** Where "from now on" starts: the newest entry id of every shard's stream, joined (see {@link QueueReads#lastEventId}). */
    public String lastEventId(String queue) {
        return resumePoint(newestEntries(queue));
    }

    private List<String> newestEntries(String queue) {
        return shards.stream().map(shard -> shard.reads().lastEventId(queue)).toList();
    }

    /** One entry id per shard, in shard order, joined: the one form of a resume point of the event stream. */
    static String resumePoint(List<String> positions) {
        return String.join(CURSOR_SEPARATOR, positions);
    }

    /**
     * Where a reader of {@code page} (read after {@code after}) resumes after each of its events, in
     * order: {@code after}'s position of every shard, moved to the event's own entry on its job's
     * shard and to the last earlier event of the page on each other shard. The merged page is in
     * entry-id order and each shard's entries are in order within it, so resuming there gives every
     * matching entry not yet given exactly once (entries that did not match are read again and
     * filtered out again). The last event's point may be behind {@link EventPage#lastRead()}, which
     * also passes the entries after it that did not match.
     */
    public List<String> resumePoints(String after, EventPage page) {
        List<String> position = new ArrayList<>(eventPositionsIn("from", after));
        List<String> points = new ArrayList<>(page.events().size());
        for (QueueEvent event : page.events()) {
            position.set(layout.shardOfJob(event.jobId()), event.id());
            points.add(resumePoint(position));
        }
        return List.copyOf(points);
    }

    /**
     * Checks a resume point of the job-event stream: one entry id (for every shard), or one per
     * shard joined by ',' as {@link #events} and {@link #resumePoints} return them.
     *
     * @throws InvalidRequestException naming {@code field}
     */
    public String checkedResumePoint(String field, String point) {
        eventPositionsIn(field, point);
        return point;
    }

    private List<String> eventPositionsIn(String field, String after) {
        List<String> parts = Arrays.asList(String.valueOf(after).split(CURSOR_SEPARATOR, -1));
        if (parts.size() == 1) {
            parts = Collections.nCopies(shards.size(), parts.get(0));
        }
        if (parts.size() != shards.size()) {
            throw new InvalidRequestException(field, "must be a resume point of this queue's " + shards.size()
                    + " shards (entry ids joined by ','), or one entry id, was '" + after + "'");
        }
        parts.forEach(part -> RequestChecks.eventId(field, part));
        return parts.stream().map(part -> part.contains("-") ? part : part + "-0").toList();
    }

    /** The queue's limits, read once from shard 0, which holds them (each shard enforces its part of a queue-wide one). */
    public QueueLimits limits(String queue) {
        return limitsInForce(queue).limits();
    }

    /** The queue's limits and their source, in one read of shard 0. */
    public LimitsInForce limitsInForce(String queue) {
        return meta.of(queue).read().limitsInForce();
    }

    /** One job as its shard holds it now (see {@link QueueReads#job}). */
    public Optional<JobView> job(String queue, String jobId) {
        return shardOf(jobId).job(queue, jobId);
    }

    /** One job's history, from its shard (see {@link QueueReads#history}). */
    public List<JobEvent> history(String queue, String jobId) {
        return shardOf(jobId).history(queue, jobId);
    }

    /**
     * The counts of every shard added up: jobs per state, lanes with work and held (the default
     * lane counts once per shard that has work in it); paused as shard 0, which holds the queue's
     * settings, says. The shards are read one after another, not at one instant.
     */
    public QueueStats stats(String queue) {
        List<QueueStats> each = shards.stream().map(shard -> shard.reads().stats(queue)).toList();
        return new QueueStats(queue,
                each.stream().mapToLong(QueueStats::pending).sum(),
                each.stream().mapToLong(QueueStats::delayed).sum(),
                each.stream().mapToLong(QueueStats::active).sum(),
                each.stream().mapToLong(QueueStats::completed).sum(),
                each.stream().mapToLong(QueueStats::dead).sum(),
                each.stream().mapToLong(QueueStats::cancelled).sum(),
                each.get(0).paused(),
                each.stream().mapToInt(QueueStats::lanesWithWork).sum(),
                each.stream().mapToInt(QueueStats::lanesHeld).sum(),
                each.stream().mapToLong(QueueStats::waitingChildren).sum());
    }

    /** The states of the jobs the queue still holds among {@code jobs}, each asked of its shard (see {@link QueueReads#statesOf}). */
    public Map<String, JobState> statesOf(String queue, List<JobIdentity> jobs) {
        Map<String, JobState> states = new HashMap<>();
        byShard(jobs, job -> layout.shardOfJob(job.jobId()))
                .forEach((shard, asked) -> states.putAll(shards.get(shard).reads().statesOf(queue, asked)));
        return Map.copyOf(states);
    }

    /** The creation contexts of these jobs, one per id in order, each read on its job's shard (see {@link QueueReads#creationContexts}). */
    public List<String> creationContexts(String queue, List<String> jobIds) {
        String[] contexts = new String[jobIds.size()];
        List<Integer> positions = IntStream.range(0, jobIds.size()).boxed().toList();
        byShard(positions, i -> layout.shardOfJob(jobIds.get(i))).forEach((shard, at) -> {
            List<String> read = shards.get(shard).reads().creationContexts(queue, at.stream().map(jobIds::get).toList());
            for (int k = 0; k < at.size(); k++) {
                contexts[at.get(k)] = read.get(k);
            }
        });
        return Arrays.asList(contexts);
    }

    /** {@code items} grouped by the shard each belongs to, each group in the order of {@code items}. */
    private static <T> Map<Integer, List<T>> byShard(List<T> items, ToIntFunction<T> shardOf) {
        Map<Integer, List<T>> groups = new HashMap<>();
        items.forEach(item -> groups.computeIfAbsent(shardOf.applyAsInt(item), s -> new ArrayList<>()).add(item));
        return groups;
    }

    private QueueReads shardOf(String jobId) {
        return shards.get(layout.shardOfJob(jobId)).reads();
    }

    /**
     * Every shard of the queue as an operator sees it (see {@link ShardView}), in shard order: one
     * {@code CLUSTER SHARDS} for the masters, then each shard's counts, limits and settings version.
     * The shards are read one after another, not at one instant. Shard 0's version is read first and
     * versions only grow, so a shard shown behind was behind when it was read.
     */
    public List<ShardView> shards(String queue) {
        layout.checkQueue(queue);
        SlotMasters masters = shards.get(0).reads().slotMasters(queue);
        long shardZero = meta.versionOf(0);
        List<ShardView> views = new ArrayList<>(shards.size());
        for (int shard = 0; shard < shards.size(); shard++) {
            long version = shard == 0 ? shardZero : meta.versionOf(shard);
            views.add(view(queue, shard, layout.keys(shard), shards.get(shard).reads(), masters, OptionalLong.of(version), version < shardZero));
        }
        return List.copyOf(views);
    }

    /** The one shard of a queue that has one, read through {@code reads} (the unsharded client's). */
    static ShardView onlyShard(String queue, QueueReads reads) {
        QueueKeys keys = ShardLayout.of(queue, 1).keys(0);
        return view(queue, 0, keys, reads, reads.slotMasters(queue), OptionalLong.empty(), false);
    }

    private static ShardView view(String queue, int shard, QueueKeys keys, QueueReads reads, SlotMasters masters, OptionalLong version,
            boolean behind) {
        return new ShardView(shard, keys.hashTag(), keys.slot(), masters.masterOf(keys.slot()), reads.stats(queue),
                reads.limits(queue), version, behind);
    }
}
