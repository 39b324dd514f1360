package io.echomq.queue.shard;

import io.echomq.queue.Dedupe;
import io.echomq.queue.Enqueued;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.internal.RequestChecks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A producer's part of a sharded queue (docs/SHARDING.md, section 2): a job of a named lane goes
 * to its lane's shard; a job without a lane goes to its key's owner shard when it has a key, else
 * to the next shard in turn. A job of a named lane whose key's owner is another shard needs the
 * key-home protocol (3.1), which is not built yet: such a submission is refused before anything
 * is sent. Thread-safe.
 */
public final class ShardedSubmissions {

    private final ShardLayout layout;
    private final List<QueueClient> shards;
    /** The next shard a job without lane and key goes to; every producer thread moves it on. */
    private final AtomicInteger turn = new AtomicInteger();

    ShardedSubmissions(ShardLayout layout, List<QueueClient> shards) {
        this.layout = layout;
        this.shards = shards;
    }

    /** Submits one job on its shard, with today's answer (see {@code Submissions.enqueue}). */
    public Enqueued enqueue(String queue, NewJob job) {
        return shards.get(shardOf(job, "")).submissions().enqueue(queue, job);
    }

    /**
     * Submits several jobs. Atomic when they go to one shard (jobs without lane or key follow the
     * others; a batch of only those goes whole to one shard). A batch over several shards is sent
     * as one atomic batch per shard, and only when every job carries an idempotency key, so that a
     * part lost on the way may be sent again; without keys it is refused, naming the first job on
     * another shard.
     */
    public List<Enqueued> enqueueBatch(String queue, List<NewJob> jobs) {
        RequestChecks.range("jobs", jobs == null ? 0 : jobs.size(), 1, io.echomq.queue.Submissions.MAX_BATCH_JOBS);
        int[] shardOfJob = new int[jobs.size()];
        Arrays.fill(shardOfJob, -1);
        for (int i = 0; i < jobs.size(); i++) {
            if (pinned(jobs.get(i), "jobs[" + i + "].")) {
                shardOfJob[i] = shardOf(jobs.get(i), "jobs[" + i + "].");
            }
        }
        int first = Arrays.stream(shardOfJob).filter(s -> s >= 0).findFirst().orElseGet(this::nextInTurn);
        for (int i = 0; i < jobs.size(); i++) {
            if (shardOfJob[i] < 0) {
                shardOfJob[i] = first;
            }
        }
        Map<Integer, List<Integer>> byShard = new LinkedHashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            byShard.computeIfAbsent(shardOfJob[i], s -> new ArrayList<>()).add(i);
        }
        if (byShard.size() == 1) {
            return shards.get(first).submissions().enqueueBatch(queue, jobs);
        }
        for (int i = 0; i < jobs.size(); i++) {
            if (jobs.get(i).idempotencyKey().isEmpty()) {
                int other = Arrays.stream(shardOfJob).filter(s -> s != first).findFirst().orElseThrow();
                int at = indexOf(shardOfJob, other);
                throw new InvalidRequestException("jobs[" + at + "].lane", "goes to shard " + other + " of queue '" + queue
                        + "' and jobs[0] to shard " + first + ": a batch over several shards must give every job an "
                        + "idempotency key (jobs[" + i + "] has none), or keep to lanes of one shard");
            }
        }
        Enqueued[] answers = new Enqueued[jobs.size()];
        byShard.forEach((shard, indexes) -> {
            List<Enqueued> part = shards.get(shard).submissions().enqueueBatch(queue, indexes.stream().map(jobs::get).toList());
            for (int k = 0; k < indexes.size(); k++) {
                answers[indexes.get(k)] = part.get(k);
            }
        });
        return List.of(answers);
    }

    /** Whether the job's shard follows from the job itself (a named lane or a key) rather than from the turn. */
    private static boolean pinned(NewJob job, String at) {
        return job != null && (ShardLayout.pinsLane(lane(job, at)) || !keys(job).isEmpty());
    }

    private int shardOf(NewJob job, String at) {
        if (job == null) {
            throw new InvalidRequestException(at.isEmpty() ? "job" : at.substring(0, at.length() - 1), "is required");
        }
        String lane = lane(job, at);
        List<String> keys = keys(job);
        int shard = ShardLayout.pinsLane(lane) ? layout.shardOfLane(lane)
                : keys.isEmpty() ? nextInTurn() : layout.ownerOfKey(keys.get(0));
        for (String key : keys) {
            if (layout.ownerOfKey(key) != shard) {
                throw new IllegalStateException("queue '" + layout.queue() + "': the job goes to shard " + shard + " (lane '" + lane
                        + "') but its key '" + key + "' is owned by shard " + layout.ownerOfKey(key) + "; a key owned by another "
                        + "shard than the job's needs the key-home protocol (docs/SHARDING.md, 3.1), which is not built yet");
            }
        }
        return shard;
    }

    /** The keys that name the job to other submissions: its idempotency key and its dedupe key, each owned by one shard. */
    private static List<String> keys(NewJob job) {
        List<String> keys = new ArrayList<>(2);
        job.idempotencyKey().ifPresent(keys::add);
        job.dedupe().map(Dedupe::key).ifPresent(keys::add);
        return keys;
    }

    private static String lane(NewJob job, String at) {
        try {
            return RequestChecks.laneName(job.lane().orElse(NewJob.DEFAULT_LANE));
        } catch (InvalidRequestException e) {
            throw at.isEmpty() ? e : new InvalidRequestException(at + e.field(), e.getMessage().substring(e.field().length() + 2));
        }
    }

    private int nextInTurn() {
        return Math.floorMod(turn.getAndIncrement(), shards.size());
    }

    private static int indexOf(int[] values, int value) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == value) {
                return i;
            }
        }
        return -1;
    }
}
