package io.echomq.queue;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.RequestChecks;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Reads pages of jobs (read-only, no script needed: nothing changes). Pending jobs live in one
 * set per lane, scored by claim order within the lane (id shifted by priority), so a pending page
 * merges the lanes by (score, member); every other state has one set scored by time, paged by
 * (score, member) in the set's own order.
 */
final class JobPages {

    private final UnifiedJedis redis;
    private final QueueKeys keys;

    JobPages(UnifiedJedis redis, QueueKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    JobPage page(JobState state, Optional<String> cursor, int limit) {
        List<JobPosition> members = positions(state, cursor, limit);
        List<String> ids = members.stream().map(JobPosition::jobId).toList();
        Optional<String> next = members.size() == limit ? Optional.of(members.get(members.size() - 1).cursor()) : Optional.empty();
        return new JobPage(keys.queue(), state, views(ids), next);
    }

    /** The places of the next {@code limit} jobs in {@code state} after the cursor, in the listing's order. */
    List<JobPosition> positions(JobState state, Optional<String> cursor, int limit) {
        Optional<ScoreCursor> after = cursor.map(ScoreCursor::parse);
        List<Tuple> members = state == JobState.PENDING ? pendingAfter(after, limit) : scoredAfter(setOf(keys, state), after, limit);
        return members.stream().map(t -> new JobPosition(t.getElement(), (long) t.getScore())).toList();
    }

    static String setOf(QueueKeys keys, JobState state) {
        return switch (state) {
            case DELAYED -> keys.delayed();
            case ACTIVE -> keys.active();
            case COMPLETED -> keys.completed();
            case DEAD -> keys.dead();
            case CANCELLED -> keys.cancelled();
            case WAITING_CHILDREN -> keys.waiting();
            case PENDING -> throw new InvalidRequestException("state", "pending jobs are held per lane; page them with jobs()");
        };
    }

    /**
     * The next pending jobs after the cursor, in claim order within each lane, across every lane
     * with work: the lanes in the ring and the lanes a limit holds.
     */
    private List<Tuple> pendingAfter(Optional<ScoreCursor> cursor, int limit) {
        List<String> lanes = new ArrayList<>(redis.lrange(keys.ring(), 0, -1));
        lanes.addAll(redis.zrange(keys.held(), 0, -1));
        List<Tuple> merged = new ArrayList<>();
        for (String lane : lanes) {
            merged.addAll(scoredAfter(keys.pending(lane), cursor, limit));
        }
        merged.sort(Comparator.comparingDouble(Tuple::getScore).thenComparing(Tuple::getElement));
        return merged.subList(0, Math.min(limit, merged.size()));
    }

    /** Members after the cursor in the set's order: by score, then by member as bytes. */
    private List<Tuple> scoredAfter(String set, Optional<ScoreCursor> cursor, int limit) {
        if (cursor.isEmpty()) {
            return redis.zrangeWithScores(set, 0, limit - 1);
        }
        ScoreCursor after = cursor.get();
        List<Tuple> out = new ArrayList<>(limit);
        int offset = 0;
        while (out.size() < limit) {
            List<Tuple> batch = redis.zrangeByScoreWithScores(set, Long.toString(after.score()), "+inf", offset, limit);
            for (Tuple t : batch) {
                if ((long) t.getScore() > after.score() || t.getElement().compareTo(after.member()) > 0) {
                    out.add(t);
                    if (out.size() == limit) {
                        break;
                    }
                }
            }
            if (batch.size() < limit) {
                break;
            }
            offset += batch.size();
        }
        return out;
    }

    List<JobView> views(List<String> ids) {
        List<Map<String, String>> hashes = perJob(ids, (p, key) -> p.hgetAll(key));
        List<JobView> views = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            view(keys.queue(), ids.get(i), hashes.get(i)).ifPresent(views::add);
        }
        return views;
    }

    /**
     * The state of each of these jobs that Valkey holds as that very job (same creation time;
     * a job named by a creation time of 0 is whichever job has the id), by job id.
     */
    Map<String, JobState> statesOf(List<JobIdentity> jobs) {
        List<String> ids = jobs.stream().map(JobIdentity::jobId).toList();
        List<List<String>> fields = perJob(ids, (p, key) -> p.hmget(key, "state", "created_at"));
        Map<String, JobState> states = new HashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            String state = fields.get(i).get(0);
            String created = fields.get(i).get(1);
            long wanted = jobs.get(i).createdMs();
            if (state != null && (wanted == 0 || Long.toString(wanted).equals(created))) {
                states.put(ids.get(i), JobState.fromWireName(state));
            }
        }
        return states;
    }

    /**
     * One read per job hash, in one pipeline. On a cluster too: every key of a queue shares its
     * hash slot, so the cluster's pipeline sends them all to the one node that holds the queue
     * (one by one, the effect retention's batch of 5,000 cost 5,000 round trips there).
     */
    private <T> List<T> perJob(List<String> ids, BiFunction<AbstractPipeline, String, Response<T>> read) {
        List<Response<T>> replies = new ArrayList<>(ids.size());
        try (AbstractPipeline p = redis.pipelined()) {
            ids.forEach(id -> replies.add(read.apply(p, keys.job(id))));
            p.sync();
        }
        List<T> out = new ArrayList<>(ids.size());
        replies.forEach(r -> out.add(r.get()));
        return out;
    }

    /** A job hash as a view; empty when the job is gone (deleted by retention meanwhile). */
    static Optional<JobView> view(String queue, String id, Map<String, String> fields) {
        if (fields.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new JobView(queue, id, JobState.fromWireName(fields.get("state")), fields.get("payload"),
                fields.get("lane"), Integer.parseInt(fields.getOrDefault("priority", Integer.toString(NewJob.DEFAULT_PRIORITY))),
                Long.parseLong(fields.get("attempts")), Long.parseLong(fields.get("max_attempts")),
                Instant.ofEpochMilli(Long.parseLong(fields.get("created_at"))), instant(fields, "due_at"),
                instant(fields, "claimed_at"), instant(fields, "lease_until"), Optional.ofNullable(fields.get("worker")),
                Optional.ofNullable(fields.get("last_error")), instant(fields, "finished_at"),
                Optional.ofNullable(fields.get("idem")), Optional.ofNullable(fields.get("note")), progress(fields),
                instant(fields, "cancel_requested"), Optional.ofNullable(fields.get("dedupe")),
                JobView.FlowParent.parse(fields.get("parent"), fields.get("parent_policy")),
                Integer.parseInt(fields.getOrDefault("flow_expected", "0"))));
    }

    private static Optional<Progress.Reported> progress(Map<String, String> fields) {
        String percent = fields.get("progress");
        if (percent == null) {
            return Optional.empty();
        }
        return Optional.of(new Progress.Reported(Integer.parseInt(percent), fields.getOrDefault("progress_message", ""),
                Long.parseLong(fields.getOrDefault("progress_attempt", "0")),
                Instant.ofEpochMilli(Long.parseLong(fields.getOrDefault("progress_at", "0")))));
    }

    private static Optional<Instant> instant(Map<String, String> fields, String name) {
        return Optional.ofNullable(fields.get(name)).map(v -> Instant.ofEpochMilli(Long.parseLong(v)));
    }

    /** Where a page of a time-scored set ended: the last member's score and the member. */
    record ScoreCursor(long score, String member) {

        static ScoreCursor parse(String text) {
            // The member is a job id (digits only); the score may be negative (a pending job of high priority).
            int dash = text.lastIndexOf('-');
            try {
                return new ScoreCursor(Long.parseLong(text.substring(0, dash)), RequestChecks.jobId(text.substring(dash + 1)));
            } catch (RuntimeException e) {
                throw new InvalidRequestException("cursor", "is not a cursor this listing returned");
            }
        }

        @Override
        public String toString() {
            return score + "-" + member;
        }
    }
}
