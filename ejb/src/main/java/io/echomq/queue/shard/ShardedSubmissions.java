package io.echomq.queue.shard;

import io.echomq.queue.Enqueued;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.internal.KeyHomeRedirect;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A producer's part of a sharded queue (docs/SHARDING.md, section 2): a job of a named lane goes
 * to its lane's shard; a job without a lane goes to its key's owner shard when it has a key, else
 * to the next shard in turn. A job with a key another shard owns (or whose key's home has moved)
 * goes through the key-home protocol ({@link KeyHomes}, 3.1), so no two shards make a job of one
 * key. Thread-safe.
 */
public final class ShardedSubmissions {

    private final ShardLayout layout;
    private final List<QueueClient> shards;
    private final KeyHomes keyHomes;
    /** The next shard a job without lane and key goes to; every producer thread moves it on. */
    private final AtomicInteger turn = new AtomicInteger();

    private final ShardedOutboxDoor outboxDoor;

    ShardedSubmissions(ShardLayout layout, List<QueueClient> shards, KeyHomes keyHomes) {
        this.layout = layout;
        this.shards = shards;
        this.keyHomes = keyHomes;
        this.outboxDoor = new ShardedOutboxDoor(layout, this, shards);
    }

    /**
     * The engine's outbox's door into this queue: jobs routed as {@link #enqueue} routes them, each
     * made through its shard's {@code Submissions.outboxDoor()}, which admits the keys the engine
     * mints for the rows it relays. For the outbox's writers and relay only (through
     * {@link QueueShards#outboxDoor()}); submitters use {@link #enqueue}, which refuses those keys.
     */
    public ShardedOutboxDoor outboxDoor() {
        return outboxDoor;
    }

    /**
     * Submits one job on its shard, with today's answer (see {@code Submissions.enqueue}); a keyed
     * job may be answered by its key's home on another shard (DUPLICATE, THROTTLED).
     *
     * @throws KeyInFlightException when its key's home is reserved on another shard by a submission not made yet
     */
    public Enqueued enqueue(String queue, NewJob job) {
        shards.get(0).submissions().check(queue, job);
        return routed(queue, job, ShardDoor.SUBMITTER);
    }

    /** As {@link #enqueue}, for a job {@link ShardedOutboxDoor} checked by the outbox's key rule. */
    Enqueued enqueueThroughOutbox(String queue, NewJob job) {
        return routed(queue, job, ShardDoor.OUTBOX);
    }

    /** {@code job}, checked already, made through {@code door} on its shard, its keys through their homes. */
    private Enqueued routed(String queue, NewJob job, ShardDoor door) {
        int shard = shardOf(job);
        if (KeyHomes.keysOf(job).isEmpty()) {
            return door.enqueue(shards.get(shard), queue, job);
        }
        return keyHomes.enqueue(queue, job, shard, door);
    }

    /**
     * Submits several jobs. Atomic when they go to one shard (jobs without lane or key follow the
     * others; a batch of only those goes whole to one shard). A batch over several shards is sent
     * as one atomic batch per shard, and only when every job carries an idempotency key, so that a
     * part lost on the way may be sent again; without keys it is refused, naming the first job on
     * another shard.
     */
    public List<Enqueued> enqueueBatch(String queue, List<NewJob> jobs) {
        shards.get(0).submissions().checkBatch(queue, jobs);
        int[] shardOfJob = new int[jobs.size()];
        Arrays.fill(shardOfJob, -1);
        for (int i = 0; i < jobs.size(); i++) {
            if (pinned(jobs.get(i))) {
                shardOfJob[i] = shardOf(jobs.get(i));
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
        // A job with a key another shard owns is sent alone through the key homes, after its shard's part.
        Set<Integer> alone = new java.util.LinkedHashSet<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (!keyHomes.ownsEveryKey(jobs.get(i), shardOfJob[i])) {
                alone.add(i);
            }
        }
        if (byShard.size() == 1 && alone.isEmpty()) {
            return sendPart(queue, first, jobs, List.copyOf(byShard.get(first)), new Enqueued[jobs.size()]);
        }
        for (int i = 0; i < jobs.size(); i++) {
            if (jobs.get(i).idempotencyKey().isEmpty()) {
                if (byShard.size() == 1) {
                    int at = alone.iterator().next();
                    throw new InvalidRequestException("jobs[" + at + "].idempotencyKey", "is needed: jobs[" + at + "]'s key is owned by "
                            + "another shard of queue '" + queue + "' than its lane's, so it is sent apart from the batch, and a batch "
                            + "sent in parts must give every job an idempotency key (jobs[" + i + "] has none)");
                }
                int other = Arrays.stream(shardOfJob).filter(s -> s != first).findFirst().orElseThrow();
                int at = indexOf(shardOfJob, other);
                throw new InvalidRequestException("jobs[" + at + "].lane", "goes to shard " + other + " of queue '" + queue
                        + "' and jobs[0] to shard " + first + ": a batch over several shards must give every job an "
                        + "idempotency key (jobs[" + i + "] has none), or keep to lanes of one shard");
            }
        }
        Enqueued[] answers = new Enqueued[jobs.size()];
        byShard.forEach((shard, indexes) -> {
            List<Integer> part = indexes.stream().filter(i -> !alone.contains(i)).toList();
            if (!part.isEmpty()) {
                sendPart(queue, shard, jobs, part, answers);
            }
        });
        for (int i : alone) {
            answers[i] = keyHomes.enqueue(queue, jobs.get(i), shardOfJob[i]);
        }
        return List.of(answers);
    }

    /**
     * Sends the jobs {@code part} of {@code jobs} as one atomic batch on {@code shard}, filling in
     * their answers; a job whose key's home turned out to be elsewhere was not made there, and is
     * then sent through the key homes.
     */
    private List<Enqueued> sendPart(String queue, int shard, List<NewJob> jobs, List<Integer> part, Enqueued[] answers) {
        List<Enqueued> made;
        try {
            made = shards.get(shard).submissions().enqueueBatch(queue, part.stream().map(jobs::get).toList());
        } catch (KeyHomeRedirect redirect) {
            List<Enqueued> partial = new ArrayList<>(redirect.answers());
            redirect.redirects().keySet().forEach(k -> partial.set(k, keyHomes.enqueue(queue, jobs.get(part.get(k)), shard)));
            made = partial;
        }
        for (int k = 0; k < part.size(); k++) {
            answers[part.get(k)] = made.get(k);
        }
        return List.copyOf(made);
    }

    /** Whether the job's shard follows from the job itself (a named lane or a key) rather than from the turn. */
    private static boolean pinned(NewJob job) {
        return ShardLayout.pinsLane(lane(job)) || !KeyHomes.keysOf(job).isEmpty();
    }

    /** The shard of a job checked already (see {@code Submissions.check}). */
    private int shardOf(NewJob job) {
        String lane = lane(job);
        List<KeyHomes.Key> keys = KeyHomes.keysOf(job);
        return ShardLayout.pinsLane(lane) ? layout.shardOfLane(lane)
                : keys.isEmpty() ? nextInTurn() : layout.ownerOfKey(keys.get(0).key());
    }

    private static String lane(NewJob job) {
        return job.lane().orElse(NewJob.DEFAULT_LANE);
    }

    /** The next shard in turn for a job that neither its lane nor a key places (a flow's laneless root without a key, too). */
    int nextInTurn() {
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
