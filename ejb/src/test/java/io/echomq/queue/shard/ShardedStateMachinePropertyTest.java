package io.echomq.queue.shard;

import static io.echomq.testkit.property.Draw.weight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.Backoff;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Dedupe;
import io.echomq.queue.Enqueued;
import io.echomq.queue.FailureKind;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobState;
import io.echomq.queue.Lease;
import io.echomq.queue.LeaseExtension;
import io.echomq.queue.ManualTransition;
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
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * Random sequences of enqueue (named lanes on every shard, the default lane, delays, idempotency
 * keys on every lane, so that a key's owner shard is often not its job's lane shard), submissions
 * that stop between two key-home steps (docs/SHARDING.md 3.1) and the key-home sweeper, throttled
 * and debounced submissions, enqueue-batch (on one shard, in parts when every job is keyed, or
 * refused), claim, complete-claim, extend, complete and retry from several simulated workers (some
 * of them settling leases that are stale), leases left to lapse and reaped, and operators' moves
 * (cancel, promote, reschedule, requeue, remove) against a queue of three shards on the testkit's
 * Valkey Cluster of three masters (docs/SHARDING.md, 9.1). After every step, on the shards' own data:
 * <ul>
 *   <li>every job the model knows is in exactly one structure of exactly one shard, the one its id
 *       names ({@code id mod 3}), and that structure is the one of its state; no shard holds a job
 *       the model does not know; ids are unique over the shards;</li>
 *   <li>a named lane's pending jobs are on its shard only;</li>
 *   <li>attempts never decrease; a settlement or heartbeat is accepted exactly when its token is
 *       current and its job active (stale tokens never settle), also for each acknowledgement of a
 *       complete-claim, on whichever shard its job is;</li>
 *   <li>a claim takes each lane's jobs oldest first (a lane's order holds on its shard);</li>
 *   <li>an idempotency key names at most one job over all shards, the model's; a dedupe window's
 *       job is the model's; a refused batch makes no job;</li>
 *   <li>a reap moves exactly the lapsed leases, each to pending or, on its last attempt, to dead.</li>
 *   <li>a queue-wide cap set over the sharded client (section 4) is split into parts, one per shard,
 *       that sum to it: a claim takes exactly what the parts leave room for (the pending jobs of each
 *       shard, up to its part minus its active jobs, up to the budget), and never leaves a shard it
 *       took from over its part, so the queue's active jobs never exceed the cap through a claim.</li>
 * </ul>
 * Flows are not in it: their own property runs on queues of 3 shards
 * ({@code ClusterStateMachinePropertyTest.flowInvariantsHoldAfterEveryStepOnQueuesOfThreeShards}, docs/SHARDING.md 3.4).
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
    /** What the sequences exercised, for the summary line: the cases a run must reach to prove anything. */
    private static final java.util.concurrent.ConcurrentHashMap<String, Integer> COUNTS = new java.util.concurrent.ConcurrentHashMap<>(
            Map.of("stopped", 0, "in-flight", 0, "duplicate-elsewhere", 0, "debounce-refused", 0, "reaped", 0));

    private static void count(String what) {
        COUNTS.merge(what, 1, Integer::sum);
    }

    private static final RedisClusterClient redis = RealServices.valkeyCluster().sharedClient();

    @Test
    void invariantsHoldOverTheShardsAfterEveryStep() {
        SequenceProperty property = SequenceProperty.of(getClass(), SEQUENCES);
        try {
            property.check(draw -> Scenario.of(draw.listOf(5, 30, ShardedStateMachinePropertyTest::action)),
                    none -> new Run("shprop-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet()));
        } finally {
            System.out.printf("%s: shards=%d sequences=%d operations=%d violations=%d stopped_submissions=%d keys_in_flight=%d "
                    + "duplicates_from_another_shard=%d debounces_refused=%d reaped=%d%n", getClass().getSimpleName(), SHARDS,
                    property.sequences(), property.operations(), property.violations(), COUNTS.get("stopped"), COUNTS.get("in-flight"),
                    COUNTS.get("duplicate-elsewhere"), COUNTS.get("debounce-refused"), COUNTS.get("reaped"));
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
                weight(2, d -> new StoppedEnqueue(enqueue(d), d.pick(KeyHomes.Step.CREATE, KeyHomes.Step.CONFIRM, KeyHomes.Step.RESERVE))),
                weight(1, d -> new Sweep()),
                weight(3, d -> new DedupeSubmit(d.pick(LANES), d.pick(Dedupe.Mode.THROTTLE, Dedupe.Mode.DEBOUNCE), d.pick("w1", "w2", "w3"))),
                weight(3, d -> new Operator(d.pick(Operator.Move.values()), d.between(0, 40))),
                weight(1, d -> new LapseAndReap(d.between(0, WORKERS - 1), d.between(1, 3))),
                weight(1, d -> new SetCap(d.pick(0, SHARDS, SHARDS + 1, SHARDS + 2, 7))));
    }

    static Enqueue enqueue(Draw draw) {
        String lane = draw.pick(LANES);
        return new Enqueue(lane, draw.pick("", "", "k1", "k2", "k3", "k4"), draw.between(1, 3), draw.between(0, 3) == 0);
    }

    sealed interface Action permits Enqueue, EnqueueBatch, Claim, CompleteClaim, Extend, Complete, Fail, SetCap, StoppedEnqueue, Sweep,
            DedupeSubmit, Operator, LapseAndReap {
        void applyTo(Run run);
    }

    /** A delayed job waits an hour: longer than any sequence, so only an operator's promote makes it pending. */
    private static final Duration DELAY = Duration.ofHours(1);

    record Enqueue(String lane, String key, int maxAttempts, boolean delayed) implements Action {
        public void applyTo(Run run) {
            try {
                answered(run, run.queue.submissions().enqueue(run.name, job()));
            } catch (KeyInFlightException e) {
                assertThat(run.inFlight).as("only a key whose submitter stopped after reserving is in flight").contains(key);
                count("in-flight");
            }
        }

        NewJob job() {
            NewJob job = NewJob.of("p").withMaxAttempts(maxAttempts);
            job = ShardLayout.pinsLane(lane) ? job.inLane(lane) : job;
            job = delayed ? job.delayedBy(DELAY) : job;
            return key.isEmpty() ? job : job.withIdempotencyKey(key);
        }

        /** The shard the job is made on: its lane's, else its key's owner (a key-less laneless job: any). */
        int shard(Run run) {
            return ShardLayout.pinsLane(lane) ? run.layout.shardOfLane(lane) : run.layout.ownerOfKey(key);
        }

        void answered(Run run, Enqueued answer) {
            if (!key.isEmpty() && run.idempotency.containsKey(key)) {
                assertThat(answer.replayed()).as("a known key answers its first job, whichever shard holds it").isTrue();
                assertThat(answer.id()).isEqualTo(run.idempotency.get(key));
                if (run.layout.shardOfJob(answer.id()) != shard(run)) {
                    count("duplicate-elsewhere");
                }
                return;
            }
            assertThat(answer.replayed()).as("key '%s' is new", key).isFalse();
            assertThat(answer.state()).isEqualTo(delayed ? JobState.DELAYED : JobState.PENDING);
            assertThat(run.jobs).as("a new id").doesNotContainKey(answer.id());
            if (!key.isEmpty() || ShardLayout.pinsLane(lane)) {
                assertThat(run.layout.shardOfJob(answer.id())).as("job %s is made on its lane's shard", answer.id()).isEqualTo(shard(run));
            }
            ModelJob job = new ModelJob(lane, maxAttempts);
            job.state = answer.state();
            run.jobs.put(answer.id(), job);
            if (!key.isEmpty()) {
                job.key = key;
                run.idempotency.put(key, answer.id());
                run.inFlight.remove(key);
            }
        }
    }

    record EnqueueBatch(List<Enqueue> jobs) implements Action {
        public void applyTo(Run run) {
            if (jobs.stream().anyMatch(job -> run.inFlight.contains(job.key()))) {
                return;  // a batch sent in parts may stop half-way at a key in flight; single submissions cover those keys
            }
            List<NewJob> batch = jobs.stream().map(Enqueue::job).toList();
            Set<Integer> shards = new HashSet<>();
            boolean keyed = jobs.stream().allMatch(job -> !job.key().isEmpty());
            boolean apart = false;
            for (Enqueue job : jobs) {
                if (ShardLayout.pinsLane(job.lane())) {
                    shards.add(run.layout.shardOfLane(job.lane()));
                    apart |= !job.key().isEmpty() && run.layout.ownerOfKey(job.key()) != run.layout.shardOfLane(job.lane());
                } else if (!job.key().isEmpty()) {
                    shards.add(run.layout.ownerOfKey(job.key()));
                }
            }
            if ((shards.size() > 1 || apart) && !keyed) {
                assertThatThrownBy(() -> run.queue.submissions().enqueueBatch(run.name, batch))
                        .as("a batch sent in parts without keys").isInstanceOf(InvalidRequestException.class);
                return;
            }
            List<Enqueued> answers = run.queue.submissions().enqueueBatch(run.name, batch);
            // Parts go in shard order, so within a batch any one job of a repeated key may be the first: take the made ones first.
            Map<String, String> madeHere = new HashMap<>();
            for (int i = 0; i < jobs.size(); i++) {
                if (!answers.get(i).replayed()) {
                    jobs.get(i).answered(run, answers.get(i));
                    madeHere.put(jobs.get(i).key(), answers.get(i).id());
                }
            }
            for (int i = 0; i < jobs.size(); i++) {
                if (answers.get(i).replayed()) {
                    assertThat(answers.get(i).id()).as("jobs[%d] with key '%s'", i, jobs.get(i).key())
                            .isEqualTo(run.idempotency.get(jobs.get(i).key()));
                }
            }
        }
    }

    /**
     * A submission whose client stops, as a crash would, before making the job (after H1), before
     * confirming it (after H2), or before reserving again after fencing the key's old home (after
     * H4); a resend or the sweeper repairs it.
     */
    record StoppedEnqueue(Enqueue enqueue, KeyHomes.Step step) implements Action {
        public void applyTo(Run run) {
            AtomicInteger reserves = new AtomicInteger();
            ShardedQueue stopping = ShardedQueue.connect(redis, QueueSettings.DEFAULT, run.layout, (reached, shard) -> {
                if (reached == step && (step != KeyHomes.Step.RESERVE || reserves.incrementAndGet() == 2)) {
                    throw new Stopped();
                }
            });
            try {
                enqueue.answered(run, stopping.submissions().enqueue(run.name, enqueue.job()));
                return;  // no key, or none of its steps was reached
            } catch (Stopped stopped) {
                count("stopped");
                // H1 done and no job yet: the key is in flight until a resend makes it or the sweeper fences it.
            } catch (KeyInFlightException e) {
                assertThat(run.inFlight).contains(enqueue.key());
                return;
            }
            if (step == KeyHomes.Step.CREATE && !run.idempotency.containsKey(enqueue.key())) {
                run.inFlight.add(enqueue.key());
            }
            if (step == KeyHomes.Step.CONFIRM && !run.idempotency.containsKey(enqueue.key())) {
                // H2 made the job; its client never heard of it, the model learns it from the shard.
                String id = redis.hget(run.layout.keys(enqueue.shard(run)).idempotency(), enqueue.key());
                assertThat(id).as("the job a stop before confirming leaves").isNotNull();
                enqueue.answered(run, new Enqueued(run.name, id, enqueue.delayed() ? JobState.DELAYED : JobState.PENDING, false));
                run.unconfirmed.add(enqueue.key());
            }
        }
    }

    static final class Stopped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stopped() {
            super("the client stopped", null, false, false);
        }
    }

    /** The sweeper, with no grace: every reservation left by a stopped client is repaired. */
    record Sweep() implements Action {
        public void applyTo(Run run) {
            run.queue.keyHomeSweeper().sweep(Duration.ZERO);
            run.inFlight.clear();
            run.unconfirmed.clear();
        }
    }

    /**
     * A throttled or debounced submission with a key of its mode (windows of an hour, so a window
     * stays open through the sequence): throttle makes one job per window; debounce replaces the
     * window's job while it waits unclaimed, if the lane is on that job's shard, and is refused
     * naming dedupe.key if not; once the job was claimed (or moved), a new job opens a new window.
     */
    record DedupeSubmit(String lane, Dedupe.Mode mode, String suffix) implements Action {
        public void applyTo(Run run) {
            String key = (mode == Dedupe.Mode.THROTTLE ? "t" : "b") + suffix;
            NewJob job = NewJob.of("d").withDedupe(mode == Dedupe.Mode.THROTTLE ? Dedupe.throttle(key, DELAY) : Dedupe.debounce(key, DELAY));
            job = ShardLayout.pinsLane(lane) ? job.inLane(lane) : job;
            int shard = ShardLayout.pinsLane(lane) ? run.layout.shardOfLane(lane) : run.layout.ownerOfKey(key);
            String held = run.windows.get(key);
            ModelJob heldJob = held == null ? null : run.jobs.get(held);
            boolean waiting = heldJob != null && heldJob.state == JobState.DELAYED && heldJob.attempts == 0;
            if (mode == Dedupe.Mode.DEBOUNCE && waiting && run.layout.shardOfJob(held) != shard) {
                NewJob refused = job;
                assertThatThrownBy(() -> run.queue.submissions().enqueue(run.name, refused)).as("a debounce across shards")
                        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("dedupe.key");
                count("debounce-refused");
                return;
            }
            Enqueued answer = run.queue.submissions().enqueue(run.name, job);
            if (held != null && mode == Dedupe.Mode.THROTTLE) {
                assertThat(answer.outcome()).as("throttled by the window of job %s", held).isEqualTo(Enqueued.Outcome.THROTTLED);
                assertThat(answer.id()).isEqualTo(held);
                return;
            }
            if (waiting) {
                assertThat(answer.outcome()).as("debounced onto job %s", held).isEqualTo(Enqueued.Outcome.REPLACED);
                assertThat(answer.id()).isEqualTo(held);
                heldJob.lane = lane;
                heldJob.maxAttempts = NewJob.of("d").maxAttempts().orElse(QueueSettings.DEFAULT.defaultMaxAttempts());
                return;
            }
            assertThat(answer.outcome()).as("a new window for '%s'", key).isEqualTo(Enqueued.Outcome.CREATED);
            assertThat(run.layout.shardOfJob(answer.id())).as("made on its lane's shard").isEqualTo(shard);
            ModelJob made = new ModelJob(lane, QueueSettings.DEFAULT.defaultMaxAttempts());
            made.state = answer.state();
            assertThat(made.state).isEqualTo(mode == Dedupe.Mode.DEBOUNCE ? JobState.DELAYED : JobState.PENDING);
            run.jobs.put(answer.id(), made);
            run.windows.put(key, answer.id());
        }
    }

    /** An operator's move on a job picked by the model, on whichever shard it is; a refused move changes nothing. */
    record Operator(Move move, int pick) implements Action {
        enum Move { CANCEL, PROMOTE, RESCHEDULE, REQUEUE, REMOVE }

        public void applyTo(Run run) {
            List<String> ids = new ArrayList<>(new TreeSet<>(run.jobs.keySet()));
            if (ids.isEmpty()) {
                return;
            }
            String id = ids.get(pick % ids.size());
            ModelJob job = run.jobs.get(id);
            JobState from = job.state;
            ShardedAdmin admin = run.queue.admin();
            switch (move) {
                case CANCEL -> {
                    if (from == JobState.ACTIVE) {
                        return;  // a cancel request to a running job ends at its worker; the unsharded property test covers it
                    }
                    ManualTransition answer = admin.cancel(run.name, id);
                    if (from == JobState.PENDING || from == JobState.DELAYED) {
                        assertThat(answer).as("cancel %s job %s", from, id).isInstanceOf(ManualTransition.Moved.class);
                        job.state = JobState.CANCELLED;
                    } else {
                        assertThat(answer).as("cancel %s job %s", from, id).isInstanceOf(ManualTransition.Refused.class);
                    }
                }
                case PROMOTE -> {
                    ManualTransition answer = admin.promote(run.name, id);
                    assertThat(answer instanceof ManualTransition.Moved).as("promote %s job %s", from, id).isEqualTo(from == JobState.DELAYED);
                    if (from == JobState.DELAYED) {
                        job.state = JobState.PENDING;
                    }
                }
                case RESCHEDULE -> {
                    ManualTransition answer = admin.reschedule(run.name, id, DELAY);
                    boolean moves = from == JobState.DELAYED;
                    assertThat(answer instanceof ManualTransition.Rescheduled).as("reschedule %s job %s", from, id).isEqualTo(moves);
                    if (moves) {
                        job.state = JobState.DELAYED;
                    }
                }
                case REQUEUE -> {
                    ManualTransition answer = admin.requeue(run.name, id);
                    assertThat(answer instanceof ManualTransition.Moved).as("requeue %s job %s", from, id).isEqualTo(from == JobState.DEAD);
                    if (from == JobState.DEAD) {
                        job.state = JobState.PENDING;
                        job.maxAttempts = (int) job.attempts + job.budget;
                    }
                }
                case REMOVE -> {
                    ManualTransition answer = admin.remove(run.name, id);
                    boolean finished = from == JobState.COMPLETED || from == JobState.DEAD || from == JobState.CANCELLED;
                    assertThat(answer instanceof ManualTransition.Removed).as("remove %s job %s", from, id).isEqualTo(finished);
                    if (finished) {
                        run.jobs.remove(id);
                        if (job.key != null) {
                            run.idempotency.remove(job.key);
                            if (run.unconfirmed.remove(job.key)) {
                                // Its home still names the removed job's shard as reserved: the key is in flight until the sweeper repairs it.
                                run.inFlight.add(job.key);
                            }
                        }
                    }
                }
                default -> throw new AssertionError(move);
            }
        }
    }

    /** Claims with a lease of a few ms and waits, on the shards' clocks, until the reaper has moved each lapsed job. */
    record LapseAndReap(int worker, int max) implements Action {
        public void applyTo(Run run) {
            Map<String, TreeSet<Long>> pendingBefore = run.pendingByLaneAndShard();
            List<ClaimedJob> claimed = run.queue.leases().claim(run.name, Duration.ofMillis(20), max, "w" + worker);
            run.leased(worker, claimed, pendingBefore, max);
            List<String> reaped = new ArrayList<>();
            int[] toDead = {0};
            org.awaitility.Awaitility.await("the lapsed leases reaped").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> {
                        io.echomq.queue.ReapResult result = run.queue.admin().reap(run.name, 100);
                        reaped.addAll(result.jobIds());
                        toDead[0] += result.toDead();
                        return reaped.size() >= claimed.size();
                    });
            assertThat(reaped).as("exactly the lapsed leases").containsExactlyInAnyOrderElementsOf(claimed.stream().map(ClaimedJob::id).toList());
            int dead = 0;
            for (ClaimedJob job : claimed) {
                ModelJob model = run.jobs.get(job.id());
                model.state = model.attempts >= model.maxAttempts ? JobState.DEAD : JobState.PENDING;
                dead += model.state == JobState.DEAD ? 1 : 0;
            }
            assertThat(toDead[0]).as("reaped on their last attempt").isEqualTo(dead);
            reaped.forEach(id -> count("reaped"));
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
        String lane;
        int maxAttempts;
        /** The attempts it was submitted with: a requeue gives it as many more (requeue-3.lua). */
        final int budget;
        JobState state = JobState.PENDING;
        long attempts;
        /** Its idempotency key, or null. */
        String key;

        ModelJob(String lane, int maxAttempts) {
            this.lane = lane;
            this.maxAttempts = maxAttempts;
            this.budget = maxAttempts;
        }
    }

    static final class Run implements SequenceProperty.Subject<Action> {
        final String name;
        final ShardLayout layout;
        final ShardedQueue queue;
        final Map<String, ModelJob> jobs = new HashMap<>();
        final Map<String, String> idempotency = new HashMap<>();
        /** Keys reserved by a submitter that stopped before making the job: others may be answered KeyInFlightException. */
        final Set<String> inFlight = new HashSet<>();
        /** Keys whose job a submitter made and stopped before confirming (after H2), not swept since: the home is still reserved. */
        final Set<String> unconfirmed = new HashSet<>();
        /** Dedupe key -> the job its window was opened (or last replaced) on. */
        final Map<String, String> windows = new HashMap<>();
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
            return job != null && job.state == JobState.ACTIVE && job.attempts == lease.token();
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
                    case DELAYED -> "delayed";
                    case CANCELLED -> "cancelled";
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
            for (String key : List.of("k1", "k2", "k3", "k4")) {
                List<String> named = new ArrayList<>();
                for (int shard = 0; shard < layout.shards(); shard++) {
                    String id = redis.hget(layout.keys(shard).idempotency(), key);
                    if (id != null && redis.exists(layout.keys(shard).job(id))) {
                        named.add(id);
                    }
                }
                assertThat(named).as("the jobs of idempotency key %s over the shards", key)
                        .isEqualTo(idempotency.containsKey(key) ? List.of(idempotency.get(key)) : List.of());
            }
        }

        private static void record(Map<String, String> where, String id, int shard, String structure) {
            String before = where.put(id, shard + ":" + structure);
            assertThat(before).as("job %s is in %s:%s and in %s", id, shard, structure, before).isNull();
        }
    }
}
