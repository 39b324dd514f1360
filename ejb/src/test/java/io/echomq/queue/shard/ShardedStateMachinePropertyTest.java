package io.echomq.queue.shard;

import static io.echomq.testkit.property.Draw.weight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.Backoff;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Enqueued;
import io.echomq.queue.FailureKind;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobState;
import io.echomq.queue.Lease;
import io.echomq.queue.LeaseExtension;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.Settlement;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.property.Draw;
import io.echomq.testkit.property.SequenceProperty;
import io.echomq.testkit.property.SequenceProperty.Scenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * Random sequences of enqueue (named lanes on every shard, the default lane, idempotency keys on
 * jobs without a lane), enqueue-batch (on one shard, or refused), claim, complete-claim, extend,
 * complete and retry from several simulated workers, some of them settling leases that are stale,
 * against a queue of three shards on the testkit's Valkey Cluster of three masters
 * (docs/SHARDING.md, 9.1; the first part of it: what ShardedSubmissions and ShardedLeases do
 * today). After every step, on the shards' own data:
 * <ul>
 *   <li>every job the model knows is in exactly one structure of exactly one shard, the one its id
 *       names ({@code id mod 3}), and that structure is the one of its state; no shard holds a job
 *       the model does not know; ids are unique over the shards;</li>
 *   <li>a named lane's pending jobs are on its shard only;</li>
 *   <li>attempts never decrease; a settlement or heartbeat is accepted exactly when its token is
 *       current and its job active (stale tokens never settle), also for each acknowledgement of a
 *       complete-claim, on whichever shard its job is;</li>
 *   <li>a claim takes each lane's jobs oldest first (a lane's order holds on its shard);</li>
 *   <li>an idempotency key names one job over all shards; a refused batch makes no job;</li>
 *   <li>a queue-wide cap set over the sharded client (section 4) is split into parts, one per shard,
 *       that sum to it: a claim takes exactly what the parts leave room for (the pending jobs of each
 *       shard, up to its part minus its active jobs, up to the budget), and never leaves a shard it
 *       took from over its part, so the queue's active jobs never exceed the cap through a claim.</li>
 * </ul>
 * The summary line counts the sequences that broke an invariant; a failure prints its seed and its
 * shortest failing prefix.
 */
class ShardedStateMachinePropertyTest {

    private static final int SHARDS = 3;
    private static final int WORKERS = 3;
    private static final int SEQUENCES = 200;
    private static final List<String> LANES = List.of("a", "b", "c", "d", "e", "f", NewJob.DEFAULT_LANE);
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static RedisClusterClient redis;

    @BeforeAll
    static void connect() {
        redis = RealServices.valkeyCluster().newClient();
    }

    @AfterAll
    static void close() {
        redis.close();
    }

    @Test
    void invariantsHoldOverTheShardsAfterEveryStep() {
        SequenceProperty property = SequenceProperty.of(getClass(), SEQUENCES);
        try {
            property.check(draw -> Scenario.of(draw.listOf(5, 30, ShardedStateMachinePropertyTest::action)),
                    none -> new Run("shprop-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet()));
        } finally {
            System.out.printf("%s: shards=%d sequences=%d operations=%d violations=%d%n", getClass().getSimpleName(), SHARDS,
                    property.sequences(), property.operations(), property.violations());
        }
    }

    static Action action(Draw draw) {
        return draw.weighted(weight(5, ShardedStateMachinePropertyTest::enqueue), weight(2, d -> new EnqueueBatch(d.listOf(1, 4,
                        ShardedStateMachinePropertyTest::enqueue))),
                weight(3, d -> new Claim(d.between(0, WORKERS - 1), d.between(1, 4))),
                weight(4, d -> new CompleteClaim(d.between(0, WORKERS - 1), d.between(0, 5), d.between(0, 4))),
                weight(2, d -> new Extend(d.between(0, WORKERS - 1), d.between(0, 20))),
                weight(3, d -> new Complete(d.between(0, WORKERS - 1), d.between(0, 20))),
                weight(3, d -> new Fail(d.between(0, WORKERS - 1), d.between(0, 20), d.pick(FailureKind.RETRYABLE, FailureKind.PERMANENT))),
                weight(1, d -> new SetCap(d.pick(0, SHARDS, SHARDS + 1, SHARDS + 2, 7))));
    }

    static Enqueue enqueue(Draw draw) {
        String lane = draw.pick(LANES);
        String key = ShardLayout.pinsLane(lane) ? "" : draw.pick("", "", "k1", "k2", "k3");
        return new Enqueue(lane, key, draw.between(1, 3));
    }

    sealed interface Action permits Enqueue, EnqueueBatch, Claim, CompleteClaim, Extend, Complete, Fail, SetCap {
        void applyTo(Run run);
    }

    record Enqueue(String lane, String key, int maxAttempts) implements Action {
        public void applyTo(Run run) {
            answered(run, run.queue.submissions().enqueue(run.name, job()));
        }

        NewJob job() {
            NewJob job = NewJob.of("p").withMaxAttempts(maxAttempts);
            job = ShardLayout.pinsLane(lane) ? job.inLane(lane) : job;
            return key.isEmpty() ? job : job.withIdempotencyKey(key);
        }

        void answered(Run run, Enqueued answer) {
            if (!key.isEmpty() && run.idempotency.containsKey(key)) {
                assertThat(answer.replayed()).as("a known key answers its first job, whichever shard holds it").isTrue();
                assertThat(answer.id()).isEqualTo(run.idempotency.get(key));
                return;
            }
            assertThat(answer.replayed()).isFalse();
            assertThat(answer.state()).isEqualTo(JobState.PENDING);
            assertThat(run.jobs).as("a new id").doesNotContainKey(answer.id());
            run.jobs.put(answer.id(), new ModelJob(lane, maxAttempts));
            if (!key.isEmpty()) {
                run.idempotency.put(key, answer.id());
            }
        }
    }

    record EnqueueBatch(List<Enqueue> jobs) implements Action {
        public void applyTo(Run run) {
            List<NewJob> batch = jobs.stream().map(Enqueue::job).toList();
            Set<Integer> shards = new HashSet<>();
            boolean keyed = jobs.stream().allMatch(job -> !job.key().isEmpty());
            for (Enqueue job : jobs) {
                if (ShardLayout.pinsLane(job.lane())) {
                    shards.add(run.layout.shardOfLane(job.lane()));
                } else if (!job.key().isEmpty()) {
                    shards.add(run.layout.ownerOfKey(job.key()));
                }
            }
            if (shards.size() > 1 && !keyed) {
                assertThatThrownBy(() -> run.queue.submissions().enqueueBatch(run.name, batch))
                        .as("a batch over several shards without keys").isInstanceOf(InvalidRequestException.class);
                return;
            }
            List<Enqueued> answers = run.queue.submissions().enqueueBatch(run.name, batch);
            Set<String> idsOfThisBatch = new HashSet<>();
            for (int i = 0; i < jobs.size(); i++) {
                Enqueue job = jobs.get(i);
                Enqueued answer = answers.get(i);
                if (idsOfThisBatch.contains(answer.id())) {
                    assertThat(answer.replayed()).as("a key repeated within the batch").isTrue();
                    continue;
                }
                job.answered(run, answer);
                idsOfThisBatch.add(answer.id());
            }
        }
    }

    record Claim(int worker, int max) implements Action {
        public void applyTo(Run run) {
            Map<String, TreeSet<Long>> pendingBefore = run.pendingByLaneAndShard();
            List<ClaimedJob> claimed = run.queue.leases().claim(run.name, LEASE, max, "w" + worker);
            run.leased(worker, claimed, pendingBefore, max);
        }
    }

    record CompleteClaim(int worker, int acks, int max) implements Action {
        public void applyTo(Run run) {
            List<Lease> held = run.leases.get(worker);
            List<Lease> finished = new ArrayList<>(held.subList(Math.max(0, held.size() - acks), held.size()));
            List<Boolean> expected = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (Lease lease : finished) {
                // Within one call, a job's current lease acknowledged twice settles at the first.
                boolean settles = run.isCurrent(lease) && !seen.contains(lease.jobId());
                if (settles) {
                    seen.add(lease.jobId());
                }
                expected.add(settles);
            }
            Map<String, TreeSet<Long>> pendingBefore = run.pendingByLaneAndShard();
            CompletedAndClaimed done = run.queue.leases().completeAndClaim(run.name, finished, LEASE, max, "w" + worker);
            assertThat(done.settlements()).hasSameSizeAs(finished);
            for (int i = 0; i < finished.size(); i++) {
                boolean accepted = done.settlements().get(i) instanceof Settlement.Completed;
                assertThat(accepted).as("acknowledgement %d of job %s (token %d)", i, finished.get(i).jobId(), finished.get(i).token())
                        .isEqualTo(expected.get(i));
                if (accepted) {
                    run.jobs.get(finished.get(i).jobId()).state = JobState.COMPLETED;
                }
            }
            run.leased(worker, done.claimed(), pendingBefore, max);
        }
    }

    record Extend(int worker, int pick) implements Action {
        public void applyTo(Run run) {
            run.pickLease(worker, pick).ifPresent(lease -> {
                boolean current = run.isCurrent(lease);
                LeaseExtension answer = run.queue.leases().extend(lease, LEASE, null);
                assertThat(answer instanceof LeaseExtension.Extended).as("heartbeat of job %s, token %d", lease.jobId(), lease.token())
                        .isEqualTo(current);
            });
        }
    }

    record Complete(int worker, int pick) implements Action {
        public void applyTo(Run run) {
            run.pickLease(worker, pick).ifPresent(lease -> {
                boolean current = run.isCurrent(lease);
                Settlement answer = run.queue.leases().complete(lease);
                assertThat(answer instanceof Settlement.Completed).as("complete job %s, token %d", lease.jobId(), lease.token())
                        .isEqualTo(current);
                if (current) {
                    run.jobs.get(lease.jobId()).state = JobState.COMPLETED;
                }
            });
        }
    }

    record Fail(int worker, int pick, FailureKind kind) implements Action {
        public void applyTo(Run run) {
            run.pickLease(worker, pick).ifPresent(lease -> {
                boolean current = run.isCurrent(lease);
                ModelJob job = run.jobs.get(lease.jobId());
                RetryOutcome answer = run.queue.leases().retry(lease, "boom", Backoff.NONE, kind);
                if (!current) {
                    assertThat(answer).as("retry of job %s with a stale token", lease.jobId()).isInstanceOf(Rejected.class);
                    return;
                }
                if (kind == FailureKind.PERMANENT || job.attempts >= job.maxAttempts) {
                    assertThat(answer).as("retry of job %s, attempt %d of %d", lease.jobId(), job.attempts, job.maxAttempts)
                            .isInstanceOf(RetryOutcome.DeadLettered.class);
                    job.state = JobState.DEAD;
                } else {
                    assertThat(answer).isInstanceOf(RetryOutcome.Scheduled.class);
                    job.state = ((RetryOutcome.Scheduled) answer).state();
                    assertThat(job.state).isEqualTo(JobState.PENDING);
                }
            });
        }
    }

    /** Sets the queue-wide cap ({@code 0}: none) through the sharded client. */
    record SetCap(int cap) implements Action {
        public void applyTo(Run run) {
            run.queue.admin().setLimits(run.name, cap == 0 ? QueueLimits.NONE : QueueLimits.NONE.withMaxActive(cap));
            run.cap = cap;
            assertThat(run.queue.reads().limits(run.name).maxActive()).isEqualTo(cap == 0 ? java.util.Optional.empty()
                    : java.util.Optional.of(cap));
        }
    }

    static final class ModelJob {
        final String lane;
        final int maxAttempts;
        JobState state = JobState.PENDING;
        long attempts;

        ModelJob(String lane, int maxAttempts) {
            this.lane = lane;
            this.maxAttempts = maxAttempts;
        }
    }

    static final class Run implements SequenceProperty.Subject<Action> {
        final String name;
        final ShardLayout layout;
        final ShardedQueue queue;
        final Map<String, ModelJob> jobs = new HashMap<>();
        final Map<String, String> idempotency = new HashMap<>();
        final List<List<Lease>> leases = new ArrayList<>();
        /** The queue-wide cap, 0 for none. */
        int cap;

        Run(String name) {
            this.name = name;
            this.layout = ShardLayout.of(name, SHARDS);
            this.queue = ShardedQueue.connect(redis, QueueSettings.DEFAULT, layout);
            for (int i = 0; i < WORKERS; i++) {
                leases.add(new ArrayList<>());
            }
        }

        @Override
        public void apply(Action action) {
            action.applyTo(this);
            checkInvariants();
        }

        boolean isCurrent(Lease lease) {
            ModelJob job = jobs.get(lease.jobId());
            return job.state == JobState.ACTIVE && job.attempts == lease.token();
        }

        java.util.Optional<Lease> pickLease(int worker, int pick) {
            List<Lease> held = leases.get(worker);
            return held.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(held.get(pick % held.size()));
        }

        /** The model's pending ids of each lane on each shard ("lane@shard"), oldest first. */
        Map<String, TreeSet<Long>> pendingByLaneAndShard() {
            Map<String, TreeSet<Long>> pending = new HashMap<>();
            jobs.forEach((id, job) -> {
                if (job.state == JobState.PENDING) {
                    pending.computeIfAbsent(job.lane + "@" + layout.shardOfJob(id), k -> new TreeSet<>()).add(Long.parseLong(id));
                }
            });
            return pending;
        }

        /** Shard {@code shard}'s part of the queue-wide cap (section 4): the parts of all shards sum to it. */
        int part(int shard) {
            return cap == 0 ? Integer.MAX_VALUE : cap / SHARDS + (shard < cap % SHARDS ? 1 : 0);
        }

        int activeOn(int shard) {
            return (int) jobs.entrySet().stream()
                    .filter(job -> job.getValue().state == JobState.ACTIVE && layout.shardOfJob(job.getKey()) == shard).count();
        }

        /** Holds a claim to the model: each lane gives its oldest jobs; each job's token is its attempts + 1. */
        void leased(int worker, List<ClaimedJob> claimed, Map<String, TreeSet<Long>> pendingBefore, int max) {
            assertThat(claimed.size()).isLessThanOrEqualTo(max);
            long mayTake = 0;
            for (int shard = 0; shard < SHARDS; shard++) {
                String onShard = "@" + shard;
                long pending = pendingBefore.entrySet().stream().filter(lane -> lane.getKey().endsWith(onShard))
                        .mapToLong(lane -> lane.getValue().size()).sum();
                mayTake += Math.min(pending, Math.max(0, part(shard) - activeOn(shard)));
            }
            assertThat(claimed.size()).as("a claim takes what the shards' parts of the cap %d leave room for", cap)
                    .isEqualTo((int) Math.min(max, mayTake));
            for (ClaimedJob job : claimed) {
                ModelJob model = jobs.get(job.id());
                assertThat(model).as("claimed job %s is known", job.id()).isNotNull();
                assertThat(model.state).as("claimed job %s was pending", job.id()).isEqualTo(JobState.PENDING);
                TreeSet<Long> lane = pendingBefore.get(model.lane + "@" + layout.shardOfJob(job.id()));
                assertThat(lane.pollFirst()).as("lane %s gives its oldest job first", model.lane).isEqualTo(Long.parseLong(job.id()));
                assertThat(job.lane()).isEqualTo(model.lane);
                assertThat(job.attempt()).as("the token of job %s", job.id()).isEqualTo(model.attempts + 1);
                model.attempts = job.attempt();
                model.state = JobState.ACTIVE;
                leases.get(worker).add(job.lease());
            }
            claimed.stream().map(job -> layout.shardOfJob(job.id())).distinct().forEach(shard -> assertThat(activeOn(shard))
                    .as("active jobs on shard %d after a claim took from it (its part of the cap %d)", shard, cap)
                    .isLessThanOrEqualTo(part(shard)));
        }

        void checkInvariants() {
            Map<String, String> where = new HashMap<>();
            for (int shard = 0; shard < layout.shards(); shard++) {
                QueueKeys keys = layout.keys(shard);
                Set<String> lanes = new HashSet<>(redis.lrange(keys.ring(), 0, -1));
                lanes.addAll(redis.zrange(keys.held(), 0, -1));
                for (String lane : LANES) {
                    List<String> pending = redis.zrange(keys.pending(lane), 0, -1);
                    if (!pending.isEmpty()) {
                        assertThat(lanes).as("lane %s with work on shard %d is in its ring", lane, shard).contains(lane);
                        if (ShardLayout.pinsLane(lane)) {
                            assertThat(shard).as("lane %s has pending jobs only on its shard", lane).isEqualTo(layout.shardOfLane(lane));
                        }
                    }
                    for (String id : pending) {
                        record(where, id, shard, "pending:" + lane);
                    }
                }
                for (String set : List.of("delayed", "active", "completed", "dead", "cancelled")) {
                    for (String id : redis.zrange(keys.prefix() + set, 0, -1)) {
                        record(where, id, shard, set);
                    }
                }
            }
            assertThat(where.keySet()).as("the shards hold exactly the jobs the model knows").isEqualTo(jobs.keySet());
            jobs.forEach((id, job) -> {
                int shard = layout.shardOfJob(id);
                String expected = shard + ":" + switch (job.state) {
                    case PENDING -> "pending:" + job.lane;
                    case ACTIVE -> "active";
                    case COMPLETED -> "completed";
                    case DEAD -> "dead";
                    default -> throw new AssertionError("the model has no " + job.state + " job");
                };
                assertThat(where.get(id)).as("job %s (%s) is on shard %d in the structure of its state", id, job.state, shard)
                        .isEqualTo(expected);
                String attempts = redis.hget(layout.keys(shard).job(id), "attempts");
                assertThat(Long.parseLong(attempts)).as("attempts of job %s", id).isEqualTo(job.attempts);
                for (int other = 0; other < layout.shards(); other++) {
                    if (other != shard) {
                        assertThat(redis.exists(layout.keys(other).job(id))).as("job %s also on shard %d", id, other).isFalse();
                    }
                }
            });
        }

        private static void record(Map<String, String> where, String id, int shard, String structure) {
            String before = where.put(id, shard + ":" + structure);
            assertThat(before).as("job %s is in %s:%s and in %s", id, shard, structure, before).isNull();
        }
    }
}
