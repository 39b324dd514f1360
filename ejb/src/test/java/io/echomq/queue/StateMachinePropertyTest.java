package io.echomq.queue;

import static io.echomq.testkit.property.Draw.weight;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Random sequences of enqueue (after a delay or at a run-at time), enqueue-batch, claim, complete-claim
 * (the worker's round trip), extend (with and without a progress report), complete, retry, stop
 * (a cancelled run's settlement), reap, cancel, requeue, reconcile, promote,
 * reschedule, trim, pause and waiting, from several simulated
 * workers holding short leases (some of them stale), with a completed-job bound of 2 (so the settle
 * path trims as it completes),
 * against a real server (one Valkey here, a Valkey Cluster in {@link ClusterStateMachinePropertyTest}).
 * After every step the invariants of docs/ARCHITECTURE.md are checked on the
 * server's own data:
 * <ul>
 *   <li>every job the model knows exists, in exactly one structure, the one of its state;</li>
 *   <li>no structure holds a job the model does not know: nothing appears, nothing is lost;</li>
 *   <li>attempts never decrease; a settlement is accepted exactly when its token is current
 *       and the job active (stale tokens never settle), also for each acknowledgement of a
 *       complete-claim, judged in order;</li>
 *   <li>retention, on the settle path or in a pass, deletes only finished jobs;</li>
 *   <li>the lane ring holds exactly the lanes with pending work; leases are scored by their
 *       deadline, delayed jobs by their due time; stats agree with the structures;</li>
 *   <li>cancelling an active job leaves it active (in the active set) with its cancel requested,
 *       which its heartbeat then reports; stop ends a job cancelled exactly when its token is
 *       current, the job active and its cancel requested, and changes nothing otherwise;</li>
 *   <li>progress is recorded exactly when the heartbeat carrying it is accepted (current token,
 *       active job), with that token as its attempt; a refused report changes nothing;</li>
 *   <li>due times come from the server's clock: a run-at time in the server's past makes a job
 *       pending, one in its future is the due time; a delay counts from the server's now;</li>
 *   <li>a pending job is scored by its id shifted by its priority (a lane gives its highest
 *       priority first, the oldest first within one);</li>
 *   <li>with caps and rate limits set and changed at random: a claim that takes jobs of a lane
 *       leaves that lane within its cap, and the queue within its own; the starts the model saw
 *       since the limits were set never exceed a rate limit in any window, for the queue or a
 *       lane; each lane's set of active jobs is exactly its active jobs while a lane cap is set
 *       (never more, otherwise); a lane with work is in the ring or held, never both;</li>
 *   <li>dedupe keys (submissions with short and long windows, some with idempotency keys too):
 *       an idempotency key is judged first; a throttle key makes a job only once its window is
 *       over on the server's clock (the new job's creation time is not before the window's end), so
 *       at most one job per key per window, and answers the window's job otherwise; a debounce
 *       submission replaces the window's job exactly while the window is open and that job is
 *       delayed and was never claimed (its payload, lane and due time then follow the last
 *       submission), and makes a new job, delayed by the window, otherwise; at every step each
 *       debounce key has at most one job waiting out its window (delayed, never claimed, due in
 *       the server's future, not moved by an operator).</li>
 * </ul>
 * Each of the 1,000 sequences (5 to 30 steps, drawn from a seed: {@link SequenceProperty}) runs on
 * a queue of its own. The summary line counts the sequences that broke an invariant (or met a
 * failing script); the property stops at the first, so a green run prints {@code violations=0}
 * because none happened. A failure prints its seed and its shortest failing prefix.
 */
class StateMachinePropertyTest {

    private static final List<String> LANES = List.of("a", "b", "c");
    private static final int WORKERS = 3;
    private static final int SEQUENCES = 1_000;
    private static final AtomicInteger QUEUES = new AtomicInteger();
    /** A small completed bound, so that complete and complete-claim trim as they settle. */
    private static final Retention SETTLE_RETENTION = new Retention(2, Duration.ofDays(1), 100, Duration.ofDays(1), 100);

    // Set before the property runs, for the actions (records) to reach; properties run one at a time.
    private static UnifiedJedis redis;
    private static QueueClient client;

    /** The server the properties run against: one Valkey here; a subclass runs the same properties on a cluster. */
    UnifiedJedis connectToServer() {
        return RealServices.valkey().newClient();
    }

    @BeforeEach
    void connect() {
        redis = connectToServer();
        client = QueueClient.connect(redis, QueueSettings.DEFAULT.withRetention(SETTLE_RETENTION));
    }

    @AfterEach
    void disconnect() {
        redis.close();
    }

    @Test
    void invariantsHoldAfterEveryStep() {
        SequenceProperty property = SequenceProperty.of(getClass(), SEQUENCES);
        try {
            property.check(draw -> Scenario.of(scenario(draw)),
                    none -> new Run("prop-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet()));
        } finally {
            System.out.printf("%s: sequences=%d operations=%d violations=%d%n", getClass().getSimpleName(),
                    property.sequences(), property.operations(), property.violations());
        }
    }

    /** Flow sequences: fewer than the queue's own, each of several flows over two queues (see {@link FlowStateMachine}). */
    private static final int FLOW_SEQUENCES = 300;

    @Test
    void flowInvariantsHoldAfterEveryStep() {
        flowInvariantsHoldAfterEveryStep(1);
    }

    /** The flow property over two queues of {@code shards} shards each. */
    void flowInvariantsHoldAfterEveryStep(int shards) {
        FlowStateMachine.FLOWS.set(0);
        FlowStateMachine.NOTICES_SENT_AGAIN.set(0);
        SequenceProperty property = SequenceProperty.of(getClass(), FLOW_SEQUENCES);
        try {
            property.check(draw -> Scenario.of(FlowStateMachine.scenario(draw)),
                    none -> new FlowStateMachine(redis, client, "flow-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet(),
                            shards));
        } finally {
            System.out.printf("%s flows over %d shards: sequences=%d operations=%d violations=%d flows=%d notices_sent_again=%d%n",
                    getClass().getSimpleName(), shards, property.sequences(), property.operations(), property.violations(),
                    FlowStateMachine.FLOWS.get(), FlowStateMachine.NOTICES_SENT_AGAIN.get());
        }
    }

    static List<Action> scenario(Draw draw) {
        return draw.listOf(5, 30, StateMachinePropertyTest::action);
    }

    static Action action(Draw draw) {
        return draw.weighted(weight(4, StateMachinePropertyTest::enqueue), weight(2, StateMachinePropertyTest::enqueueBatch),
                weight(3, StateMachinePropertyTest::claim), weight(4, StateMachinePropertyTest::completeClaim),
                weight(2, StateMachinePropertyTest::extend), weight(3, StateMachinePropertyTest::complete),
                weight(3, StateMachinePropertyTest::fail), weight(2, StateMachinePropertyTest::operator),
                weight(3, StateMachinePropertyTest::time), weight(1, StateMachinePropertyTest::enqueueAt),
                weight(2, StateMachinePropertyTest::due), weight(1, StateMachinePropertyTest::limits),
                weight(4, StateMachinePropertyTest::dedupe), weight(1, StateMachinePropertyTest::dedupeBatch));
    }

    static int worker(Draw draw) {
        return draw.between(0, WORKERS - 1);
    }

    /** Which of the known jobs, or of a worker's leases, a step picks (modulo their number). */
    static int pick(Draw draw) {
        return draw.between(0, 20);
    }

    static Enqueue enqueue(Draw draw) {
        return new Enqueue(draw.pick(LANES), draw.pick(0, 0, 0, 15), draw.between(1, 3), draw.pick("", "", "k1", "k2", "k3"),
                draw.pick(4, 4, 0, 9, 6));
    }

    static Action enqueueBatch(Draw draw) {
        return new EnqueueBatch(draw.listOf(1, 4, StateMachinePropertyTest::enqueue));
    }

    static Action claim(Draw draw) {
        return new Claim(worker(draw), draw.between(1, 3), draw.pick(10, 25, 10_000));
    }

    static Action completeClaim(Draw draw) {
        return new CompleteClaim(worker(draw), draw.between(0, 7), draw.between(0, 3), draw.pick(10, 25, 10_000));
    }

    static Action extend(Draw draw) {
        return draw.oneOf(d -> new Extend(worker(d), pick(d), d.pick(10, 10_000)),
                d -> new ReportProgress(worker(d), pick(d), d.between(0, 100)));
    }

    static Action complete(Draw draw) {
        return draw.oneOf(d -> new Complete(worker(d), pick(d)), d -> new Stop(worker(d), pick(d)));
    }

    static Action fail(Draw draw) {
        return new Fail(worker(draw), pick(draw), draw.pick(0, 10),
                draw.pick(FailureKind.RETRYABLE, FailureKind.RETRYABLE, FailureKind.PERMANENT, FailureKind.CONTENDED));
    }

    static Action operator(Draw draw) {
        return draw.oneOf(d -> new Cancel(pick(d)), d -> new Requeue(pick(d)), d -> new Reconcile(pick(d)), d -> new Remove(pick(d)),
                d -> new Trim(), d -> new Pause(d.pick(true, false)));
    }

    static Action limits(Draw draw) {
        return new SetLimits(draw.pick(QueueLimits.NONE, QueueLimits.NONE.withMaxActive(2), QueueLimits.NONE.withLaneMaxActive(1),
                QueueLimits.NONE.withLaneMaxActive(2).withMaxActive(3), QueueLimits.NONE.withRate(3, Duration.ofMillis(40)),
                QueueLimits.NONE.withLaneRate(1, Duration.ofMillis(25)),
                QueueLimits.NONE.withLaneMaxActive(1).withLaneRate(2, Duration.ofMillis(30)).withRate(4, Duration.ofMillis(20))));
    }

    static Action enqueueAt(Draw draw) {
        return new EnqueueAt(draw.pick(LANES), draw.pick(-1_000, 0, 15, 60_000));
    }

    static Action due(Draw draw) {
        return draw.oneOf(d -> new Promote(pick(d)), d -> new RescheduleAt(pick(d), d.pick(-1_000, 15, 60_000)),
                d -> new RescheduleIn(pick(d), d.pick(0, 15, 60_000)));
    }

    /** Throttle keys t1, t2 and debounce keys d1, d2, so that a key has one mode. */
    static DedupeSubmit dedupe(Draw draw) {
        return draw.oneOf(d -> new DedupeSubmit(d.pick("t1", "t2"), Dedupe.Mode.THROTTLE, d.pick(20, 10_000), d.pick(LANES),
                        d.pick("", "", "", "k1", "k4")),
                d -> new DedupeSubmit(d.pick("d1", "d2"), Dedupe.Mode.DEBOUNCE, d.pick(20, 10_000), d.pick(LANES),
                        d.pick("", "", "", "k1", "k4")));
    }

    static Action dedupeBatch(Draw draw) {
        return new DedupeBatch(draw.listOf(2, 4, StateMachinePropertyTest::dedupe));
    }

    static Action time(Draw draw) {
        return draw.oneOf(d -> new Reap(), d -> new Sleep(d.pick(1, 5, 15, 30)));
    }

    /** One step of a scenario. */
    sealed interface Action permits Enqueue, EnqueueBatch, EnqueueAt, DedupeSubmit, DedupeBatch, Claim, CompleteClaim, Extend, ReportProgress, Complete,
            Stop, Fail, Cancel, Requeue, Reconcile, Promote, RescheduleAt, RescheduleIn, Remove, Trim, Pause, Reap, Sleep, SetLimits {
        void applyTo(Run run);
    }

    record Enqueue(String lane, int delayMs, int maxAttempts, String key, int priority) implements Action {
        public void applyTo(Run run) {
            answered(run, client.submissions().enqueue(run.queue, job()));
        }

        NewJob job() {
            NewJob job = NewJob.of("job").inLane(lane).delayedBy(Duration.ofMillis(delayMs)).withMaxAttempts(maxAttempts)
                    .withPriority(priority);
            return key.isEmpty() ? job : job.withIdempotencyKey(key);
        }

        /** Holds the answer to the model (a known key answers its first job) and records a new job. */
        void answered(Run run, Enqueued answer) {
            Optional<String> known = key.isEmpty() ? Optional.empty() : Optional.ofNullable(run.idempotency.get(key));
            Enqueued enqueued = known.isEmpty() && !key.isEmpty() ? run.asFirstRunIfResent(key, answer, null) : answer;
            if (known.isPresent()) {
                assertThat(enqueued.replayed()).as("a known key answers the first job").isTrue();
                assertThat(enqueued.id()).isEqualTo(known.get());
                return;
            }
            assertThat(enqueued.replayed()).isFalse();
            assertThat(enqueued.state()).isEqualTo(delayMs > 0 ? JobState.DELAYED : JobState.PENDING);
            run.jobs.add(enqueued.id());
            run.attempts.put(enqueued.id(), 0L);
            if (!key.isEmpty()) {
                run.nameByKey(key, enqueued.id());
            }
        }
    }

    /** Several jobs in one atomic call, answered in order as single submissions would be. */
    record EnqueueBatch(List<Enqueue> jobs) implements Action {
        public void applyTo(Run run) {
            List<Enqueued> answers = client.submissions().enqueueBatch(run.queue, jobs.stream().map(Enqueue::job).toList());
            assertThat(answers).hasSameSizeAs(jobs);
            for (int i = 0; i < jobs.size(); i++) {
                jobs.get(i).answered(run, answers.get(i));
            }
        }
    }

    /** A job due at the server's now + {@code offsetMs}: pending when that is not in the server's future at the enqueue. */
    record EnqueueAt(String lane, int offsetMs) implements Action {
        public void applyTo(Run run) {
            long runAt = run.serverNowMs() + offsetMs;
            long before = run.serverNowMs();
            Enqueued enqueued = client.submissions().enqueue(run.queue, NewJob.of("at").inLane(lane).scheduledAt(java.time.Instant.ofEpochMilli(runAt)));
            long after = run.serverNowMs();
            if (runAt <= before) {
                assertThat(enqueued.state()).as("a run-at time in the server's past means now").isEqualTo(JobState.PENDING);
            } else if (runAt > after) {
                assertThat(enqueued.state()).isEqualTo(JobState.DELAYED);
                assertThat(redis.zscore(run.keys.delayed(), enqueued.id())).as("due at the run-at time").isEqualTo((double) runAt);
            }
            run.jobs.add(enqueued.id());
            run.attempts.put(enqueued.id(), 0L);
        }
    }

    /**
     * A submission with a dedupe key (throttle keys t1, t2; debounce keys d1, d2, so that a key has
     * one mode) and maybe an idempotency key, held to the model of the key's window.
     */
    record DedupeSubmit(String key, Dedupe.Mode mode, int windowMs, String lane, String idem) implements Action {
        public void applyTo(Run run) {
            Before before = before(run);
            answered(run, before, client.submissions().enqueue(run.queue, job(before.payload())), run.serverNowMs(), true);
        }

        /** The model's view of the key's window and its job just before the submission, with the payload it sends. */
        record Before(String payload, Window window, List<String> held, long nowMs) {
        }

        Before before(Run run) {
            Window window = run.windows.get(key);
            List<String> held = window == null ? null : redis.hmget(run.keys.job(window.id()), "state", "attempts");
            return new Before("p" + run.payloads++, window, held, run.serverNowMs());
        }

        NewJob job(String payload) {
            NewJob job = NewJob.of(payload).inLane(lane).withDedupe(new Dedupe(key, Duration.ofMillis(windowMs), mode));
            return idem.isEmpty() ? job : job.withIdempotencyKey(idem);
        }

        /** {@code last}: no later submission of the same call has this key, so the job shows this one's fields. */
        void answered(Run run, Before before, Enqueued sent, long afterMs, boolean last) {
            String known = idem.isEmpty() ? null : run.idempotency.get(idem);
            Enqueued answer = known == null && !idem.isEmpty() ? run.asFirstRunIfResent(idem, sent, before.window()) : sent;
            if (known != null) {
                assertThat(answer.outcome()).as("a known idempotency key is judged first").isEqualTo(Enqueued.Outcome.DUPLICATE);
                assertThat(answer.id()).isEqualTo(known);
                return;
            }
            Window window = before.window();
            switch (answer.outcome()) {
                case THROTTLED -> {
                    assertThat(mode).as("only a throttle key throttles").isEqualTo(Dedupe.Mode.THROTTLE);
                    assertThat(window).as("throttled by a window the model knows").isNotNull();
                    assertThat(answer.id()).as("the window's job answers").isEqualTo(window.id());
                    assertThat(window.endMs()).as("the window was open when the script ran").isGreaterThan(before.nowMs());
                    String state = before.held().get(0);
                    assertThat(answer.state()).as("the window's job's state (none once deleted)")
                            .isEqualTo(state == null ? null : JobState.fromWireName(state));
                }
                case REPLACED -> {
                    assertThat(mode).as("only a debounce key replaces").isEqualTo(Dedupe.Mode.DEBOUNCE);
                    assertThat(window).isNotNull();
                    assertThat(answer.id()).isEqualTo(window.id());
                    assertThat(window.endMs()).as("the window was open").isGreaterThan(before.nowMs());
                    assertThat(before.held()).as("only a waiting job that was never claimed is replaced")
                            .containsExactly("delayed", "0");
                    Map<String, String> job = redis.hgetAll(run.keys.job(answer.id()));
                    assertThat(job).containsEntry("state", "delayed").containsEntry("attempts", "0");
                    if (!idem.isEmpty()) {
                        // The replacing submission's key names the job from now on, beside the job's own.
                        run.nameByKey(idem, answer.id());
                    }
                    if (!last) {
                        // A later submission of the call took it over; the window ends at least this long after the call began.
                        run.windows.put(key, new Window(answer.id(), before.nowMs() + windowMs));
                        return;
                    }
                    assertThat(job).containsEntry("payload", before.payload()).containsEntry("lane", lane);
                    long due = Long.parseLong(job.get("due_at"));
                    assertThat(due).as("due a window after this submission, on the server clock")
                            .isBetween(before.nowMs() + windowMs, afterMs + windowMs);
                    run.windows.put(key, new Window(answer.id(), due));
                }
                case CREATED -> {
                    Map<String, String> job = redis.hgetAll(run.keys.job(answer.id()));
                    long created = Long.parseLong(job.get("created_at"));
                    if (window != null) {
                        boolean waiting = List.of("delayed", "0").equals(before.held());
                        if (mode == Dedupe.Mode.THROTTLE || waiting) {
                            assertThat(created).as("a new job only once the window of %s is over", window)
                                    .isGreaterThanOrEqualTo(window.endMs());
                        }
                    }
                    assertThat(job).containsEntry("dedupe", key);
                    if (last) {
                        assertThat(job).containsEntry("payload", before.payload());
                    }
                    if (mode == Dedupe.Mode.DEBOUNCE) {
                        assertThat(answer.state()).isEqualTo(JobState.DELAYED);
                        if (last) {
                            assertThat(job).as("a debounced job waits out its window").containsEntry("due_at", Long.toString(created + windowMs));
                        }
                    } else {
                        assertThat(answer.state()).isEqualTo(JobState.PENDING);
                    }
                    run.windows.put(key, new Window(answer.id(), created + windowMs));
                    run.jobs.add(answer.id());
                    run.attempts.put(answer.id(), 0L);
                    if (!idem.isEmpty()) {
                        run.nameByKey(idem, answer.id());
                    }
                }
                default -> throw new AssertionError("unexpected " + answer + " for " + this + "; the model's idempotency keys "
                        + run.idempotency + ", Valkey's " + redis.hgetAll(run.keys.idempotency()) + ", the model's windows " + run.windows
                        + ", the answer's job " + redis.hgetAll(run.keys.job(answer.id())));
            }
        }
    }

    /**
     * Several dedupe submissions in one call, judged as if made one after another (the server's
     * now before the call and after it bound each one's).
     */
    record DedupeBatch(List<DedupeSubmit> jobs) implements Action {
        public void applyTo(Run run) {
            List<DedupeSubmit.Before> befores = new ArrayList<>();
            List<NewJob> batch = new ArrayList<>();
            long nowMs = run.serverNowMs();
            for (DedupeSubmit job : jobs) {
                String payload = "p" + run.payloads++;
                befores.add(new DedupeSubmit.Before(payload, null, null, nowMs));
                batch.add(job.job(payload));
            }
            List<Enqueued> answers = client.submissions().enqueueBatch(run.queue, batch);
            long afterMs = run.serverNowMs();
            assertThat(answers).hasSameSizeAs(jobs);
            for (int i = 0; i < jobs.size(); i++) {
                // The model's window as the earlier jobs of this batch left it; the held job read now
                // stands for it as it was then, except for a job this batch replaced or made.
                DedupeSubmit job = jobs.get(i);
                Window window = run.windows.get(job.key());
                List<String> held = window == null ? null : redis.hmget(run.keys.job(window.id()), "state", "attempts");
                boolean last = jobs.subList(i + 1, jobs.size()).stream().noneMatch(later -> later.key().equals(job.key()));
                job.answered(run, new DedupeSubmit.Before(befores.get(i).payload(), window, held, nowMs), answers.get(i), afterMs, last);
            }
            // A replacement followed in the call by a submission of the same key leaves the model only
            // a lower bound on its window's end (the server's now inside the call is not known), and
            // that later submission may have changed nothing (a known idempotency key): the window as
            // the call left it is the one the script wrote.
            for (DedupeSubmit job : jobs) {
                String held = redis.get(run.keys.prefix() + "dedupe:" + job.key());
                if (held != null) {
                    String[] idAndEnd = held.split(":");
                    run.windows.put(job.key(), new Window(idAndEnd[0], Long.parseLong(idAndEnd[1])));
                }
            }
        }
    }

    /** A dedupe key's latest window: its job and its end (ms, server clock). */
    record Window(String id, long endMs) {
    }

    record Promote(int pick) implements Action {
        public void applyTo(Run run) {
            run.operate(pick, id -> client.admin().promote(run.queue, id), Set.of("delayed"));
        }
    }

    /** A delayed job's due time moved to the server's now + {@code offsetMs}; in the server's past it is promoted. */
    record RescheduleAt(int pick, int offsetMs) implements Action {
        public void applyTo(Run run) {
            long runAt = run.serverNowMs() + offsetMs;
            run.reschedule(pick, id -> client.admin().reschedule(run.queue, id, java.time.Instant.ofEpochMilli(runAt)), runAt, nowAfter -> runAt);
        }
    }

    /** A delayed job's due time moved to {@code delayMs} after the server's now as the script reads it. */
    record RescheduleIn(int pick, int delayMs) implements Action {
        public void applyTo(Run run) {
            long before = run.serverNowMs();
            run.reschedule(pick, id -> client.admin().reschedule(run.queue, id, Duration.ofMillis(delayMs)), before + delayMs,
                    nowAfter -> nowAfter + delayMs);
        }
    }

    record Claim(int worker, int max, int leaseMs) implements Action {
        public void applyTo(Run run) {
            run.claimed(worker, max, client.leases().claim(run.queue, Duration.ofMillis(leaseMs), max, "w" + worker));
        }
    }

    /**
     * The worker's round trip: acknowledges the leases the mask picks (current or stale), then
     * claims up to {@code max} (0: a batched complete). Each acknowledgement is judged in order
     * against the model, as complete would be; the claim as claim's.
     */
    record CompleteClaim(int worker, int mask, int max, int leaseMs) implements Action {
        public void applyTo(Run run) {
            List<Lease> held = run.leases.get(worker);
            List<Lease> acks = new ArrayList<>();
            for (int i = 0; i < held.size() && i < 3; i++) {
                if ((mask & (1 << i)) != 0) {
                    acks.add(held.get(held.size() - 1 - i));
                }
            }
            Map<String, List<String>> before = new HashMap<>();
            for (Lease lease : acks) {
                before.computeIfAbsent(lease.jobId(), id -> new ArrayList<>(redis.hmget(run.keys.job(id), "state", "attempts")));
            }
            Map<String, String> states = run.states();

            CompletedAndClaimed result = client.leases().completeAndClaim(run.queue, acks, Duration.ofMillis(leaseMs), max, "w" + worker);

            assertThat(result.settlements()).hasSameSizeAs(acks);
            Set<String> settled = new HashSet<>();
            for (int i = 0; i < acks.size(); i++) {
                List<String> job = before.get(acks.get(i).jobId());
                if (Run.judge(acks.get(i), job, result.settlements().get(i), Settlement.Completed.class::isInstance)) {
                    job.set(0, "completed");
                    settled.add(acks.get(i).jobId());
                }
            }
            run.forgetTrimmed(states, Set.of("completed"), settled);
            run.claimed(worker, max, result.claimed());
        }
    }

    record Extend(int worker, int pick, int leaseMs) implements Action {
        public void applyTo(Run run) {
            run.settle(worker, pick, lease -> client.leases().extend(lease, Duration.ofMillis(leaseMs)),
                    outcome -> outcome instanceof LeaseExtension.Extended);
        }
    }

    /** A heartbeat carrying a progress report, with one of the worker's leases (current or stale). */
    record ReportProgress(int worker, int pick, int percent) implements Action {
        public void applyTo(Run run) {
            List<Lease> held = run.leases.get(worker);
            Lease lease = held.isEmpty() ? new Lease(run.queue, "999999", 1, 1) : held.get(pick % held.size());
            List<String> before = redis.hmget(run.keys.job(lease.jobId()), "progress", "progress_message", "progress_attempt");
            boolean accepted = run.settle(worker, pick, l -> client.leases().extend(l, Duration.ofMillis(10_000),
                    new Progress(percent, "p" + percent)), outcome -> outcome instanceof LeaseExtension.Extended).isPresent();
            List<String> after = redis.hmget(run.keys.job(lease.jobId()), "progress", "progress_message", "progress_attempt");
            if (accepted) {
                assertThat(after).as("an accepted report is recorded with its attempt")
                        .containsExactly(Integer.toString(percent), "p" + percent, Long.toString(lease.token()));
            } else {
                assertThat(after).as("a refused report (stale or settled lease) changes nothing").isEqualTo(before);
            }
        }
    }

    record Complete(int worker, int pick) implements Action {
        public void applyTo(Run run) {
            Map<String, String> states = run.states();
            Optional<String> settled = run.settle(worker, pick, client.leases()::complete, outcome -> outcome instanceof Settlement.Completed);
            run.forgetTrimmed(states, Set.of("completed"), settled.map(Set::of).orElse(Set.of()));
        }
    }

    /** A worker ends its job cancelled, as after its handler stopped on request: fenced, and only if a cancel was requested. */
    record Stop(int worker, int pick) implements Action {
        public void applyTo(Run run) {
            List<Lease> held = run.leases.get(worker);
            Lease lease = held.isEmpty() ? new Lease(run.queue, "999999", 1, 1) : held.get(pick % held.size());
            List<String> before = redis.hmget(run.keys.job(lease.jobId()), "state", "attempts", "cancel_requested");
            StopOutcome outcome = client.leases().stop(lease, "stopped");
            boolean current = "active".equals(before.get(0)) && Long.toString(lease.token()).equals(before.get(1));
            boolean requested = before.get(2) != null;
            assertThat(outcome instanceof StopOutcome.Stopped).as("%s with token %d when job is %s", outcome, lease.token(), before)
                    .isEqualTo(current && requested);
            assertThat(outcome instanceof StopOutcome.NotRequested).isEqualTo(current && !requested);
            List<String> after = redis.hmget(run.keys.job(lease.jobId()), "state", "attempts", "cancel_requested");
            if (current && requested) {
                assertThat(after.get(0)).isEqualTo("cancelled");
            } else {
                assertThat(after).as("a refused stop changes nothing").isEqualTo(before);
            }
        }
    }

    record Fail(int worker, int pick, int backoffMs, FailureKind kind) implements Action {
        public void applyTo(Run run) {
            Backoff backoff = new Backoff(Duration.ofMillis(backoffMs), Duration.ofMillis(backoffMs));
            run.settle(worker, pick, lease -> client.leases().retry(lease, "failed", backoff, kind),
                    outcome -> !(outcome instanceof Rejected));
        }
    }

    /** Pending and delayed jobs are cancelled; an active one stays active with its cancel requested, reported by its heartbeat. */
    record Cancel(int pick) implements Action {
        public void applyTo(Run run) {
            if (run.jobs.isEmpty()) {
                return;
            }
            String id = List.copyOf(run.jobs).get(pick % run.jobs.size());
            String before = redis.hget(run.keys.job(id), "state");
            ManualTransition outcome = client.admin().cancel(run.queue, id);
            assertThat(outcome instanceof ManualTransition.Moved).as("%s from %s", outcome, before)
                    .isEqualTo(Set.of("pending", "delayed").contains(before));
            assertThat(outcome instanceof ManualTransition.CancelRequested).as("%s from %s", outcome, before)
                    .isEqualTo("active".equals(before));
            if ("active".equals(before)) {
                assertThat(redis.hget(run.keys.job(id), "state")).isEqualTo("active");
                Lease current = new Lease(run.queue, id, Long.parseLong(redis.hget(run.keys.job(id), "created_at")),
                        Long.parseLong(redis.hget(run.keys.job(id), "attempts")));
                assertThat(client.leases().extend(current, Duration.ofMillis(10_000))).as("the heartbeat reports the request")
                        .isInstanceOfSatisfying(LeaseExtension.Extended.class, e -> assertThat(e.cancelRequested()).isTrue());
            }
        }
    }

    record Requeue(int pick) implements Action {
        public void applyTo(Run run) {
            run.operate(pick, id -> client.admin().requeue(run.queue, id), Set.of("dead"));
        }
    }

    record Reconcile(int pick) implements Action {
        public void applyTo(Run run) {
            run.operate(pick, id -> client.admin().reconcile(run.queue, id, 0, "effect seen"), Set.of("pending", "delayed", "dead", "cancelled"));
        }
    }

    record Remove(int pick) implements Action {
        public void applyTo(Run run) {
            if (run.jobs.isEmpty()) {
                return;
            }
            String id = List.copyOf(run.jobs).get(pick % run.jobs.size());
            String before = redis.hget(run.keys.job(id), "state");
            ManualTransition outcome = client.admin().remove(run.queue, id);
            boolean finished = Set.of("completed", "dead", "cancelled").contains(before);
            assertThat(outcome instanceof ManualTransition.Removed).as("%s from %s", outcome, before).isEqualTo(finished);
            if (finished) {
                run.forget(id);
            }
        }
    }

    record Trim() implements Action {
        public void applyTo(Run run) {
            Map<String, String> before = run.states();
            client.admin().trim(run.queue, new Retention(1, Duration.ofMillis(20), 1, Duration.ofMillis(20), 100));
            run.forgetTrimmed(before, Set.of("completed", "dead", "cancelled"), Set.of());
        }
    }

    record Pause(boolean paused) implements Action {
        public void applyTo(Run run) {
            assertThat(paused ? client.admin().pause(run.queue) : client.admin().resume(run.queue)).isEqualTo(paused);
            run.paused = paused;
        }
    }

    /** The queue's limits replaced; the model's record of starts begins again from here. */
    record SetLimits(QueueLimits limits) implements Action {
        public void applyTo(Run run) {
            assertThat(client.admin().setLimits(run.queue, limits)).isEqualTo(limits);
            assertThat(client.reads().limits(run.queue)).isEqualTo(limits);
            run.limits = limits;
            run.queueStarts.clear();
            run.laneStarts.clear();
        }
    }

    record Reap() implements Action {
        public void applyTo(Run run) {
            ReapResult reaped = client.admin().reap(run.queue, 100);
            assertThat(reaped.jobIds()).hasSize(reaped.total());
            assertThat(run.jobs).containsAll(reaped.jobIds());
        }
    }

    record Sleep(int millis) implements Action {
        public void applyTo(Run run) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** The model of one scenario: what the queue must hold, and what each worker holds. */
    static final class Run implements SequenceProperty.Subject<Action> {
        final String queue;
        final QueueKeys keys;
        final Set<String> jobs = new LinkedHashSet<>();
        final Map<String, Long> attempts = new HashMap<>();
        final Map<String, String> idempotency = new HashMap<>();
        /** The idempotency keys that name each job: its own, and those of debounced submissions that replaced it. */
        final Map<String, List<String>> keysOf = new HashMap<>();
        final Map<String, Window> windows = new HashMap<>();
        /** Jobs whose due time an operator moved (out of the window their dedupe key gave them). */
        final Set<String> rescheduled = new HashSet<>();
        int payloads;
        final List<List<Lease>> leases = new ArrayList<>();
        boolean paused;
        QueueLimits limits = QueueLimits.NONE;
        /** Server times of the claims seen since the limits were set: of the queue, of each lane. */
        final List<Long> queueStarts = new ArrayList<>();
        final Map<String, List<Long>> laneStarts = new HashMap<>();

        Run(String queue) {
            this.queue = queue;
            this.keys = new QueueKeys(queue);
            for (int i = 0; i < WORKERS; i++) {
                leases.add(new ArrayList<>());
            }
        }

        @Override
        public void apply(Action action) {
            action.applyTo(this);
            checkInvariants(action);
        }

        /**
         * Runs a fenced settlement with one of the worker's leases, current or stale, and holds
         * the outcome to the oracle: accepted exactly when the job is active at that token.
         */
        <T> Optional<String> settle(int worker, int pick, java.util.function.Function<Lease, T> call,
                java.util.function.Predicate<T> accepted) {
            List<Lease> held = leases.get(worker);
            Lease lease = held.isEmpty() ? new Lease(queue, "999999", 1, 1) : held.get(pick % held.size());
            List<String> before = redis.hmget(keys.job(lease.jobId()), "state", "attempts");
            return judge(lease, before, call.apply(lease), accepted) ? Optional.of(lease.jobId()) : Optional.empty();
        }

        /**
         * The oracle of one fenced settlement, given the job's state and attempts before it:
         * accepted exactly when the job is active at the lease's token; else the rejection that
         * says why. Returns whether it was accepted.
         */
        static <T> boolean judge(Lease lease, List<String> before, T outcome, java.util.function.Predicate<T> accepted) {
            boolean exists = before.get(0) != null;
            boolean current = exists && "active".equals(before.get(0)) && Long.toString(lease.token()).equals(before.get(1));
            assertThat(accepted.test(outcome)).as("%s with token %d when job is %s", outcome, lease.token(), before)
                    .isEqualTo(current);
            if (outcome instanceof Rejected rejected) {
                Rejected.Reason expected = !exists ? Rejected.Reason.NOT_FOUND
                        : !Long.toString(lease.token()).equals(before.get(1)) ? Rejected.Reason.STALE_TOKEN
                        : Rejected.Reason.NOT_ACTIVE;
                assertThat(rejected.reason()).isEqualTo(expected);
            }
            return current;
        }

        /** Records a claim's jobs as the worker's leases, each with the next token. */
        void claimed(int worker, int max, List<ClaimedJob> claimed) {
            assertThat(claimed.size()).isLessThanOrEqualTo(max);
            for (ClaimedJob job : claimed) {
                assertThat(jobs).as("claimed job is known").contains(job.id());
                assertThat(job.attempt()).as("claim mints the next token").isEqualTo(attempts.get(job.id()) + 1);
                leases.get(worker).add(job.lease());
            }
            if (!claimed.isEmpty()) {
                checkLimits(claimed);
            }
        }

        /** A claim that took jobs left the queue and each lane it took from within their caps and rates. */
        private void checkLimits(List<ClaimedJob> claimed) {
            long at = Long.parseLong(redis.hget(keys.job(claimed.get(0).id()), "claimed_at"));
            Map<String, Long> activeByLane = new HashMap<>();
            List<String> active = redis.zrange(keys.active(), 0, -1);
            for (String id : active) {
                activeByLane.merge(redis.hget(keys.job(id), "lane"), 1L, Long::sum);
            }
            limits.maxActive().ifPresent(cap -> assertThat(active).as("the queue within its cap after a claim").hasSizeLessThanOrEqualTo(cap));
            for (ClaimedJob job : claimed) {
                queueStarts.add(at);
                laneStarts.computeIfAbsent(job.lane(), l -> new ArrayList<>()).add(at);
            }
            for (String lane : claimed.stream().map(ClaimedJob::lane).distinct().toList()) {
                limits.laneMaxActive().ifPresent(cap -> assertThat(activeByLane.get(lane)).as("lane %s within its cap after a claim", lane)
                        .isLessThanOrEqualTo(cap));
                limits.laneRate().ifPresent(rate -> assertThat(startsWithin(laneStarts.get(lane), at, rate))
                        .as("lane %s starts in the window ending %d", lane, at).isLessThanOrEqualTo(rate.starts()));
            }
            limits.rate().ifPresent(rate -> assertThat(startsWithin(queueStarts, at, rate))
                    .as("queue starts in the window ending %d", at).isLessThanOrEqualTo(rate.starts()));
        }

        private static long startsWithin(List<Long> starts, long at, QueueLimits.Rate rate) {
            return starts.stream().filter(t -> t > at - rate.window().toMillis() && t <= at).count();
        }

        /**
         * Forgets the known jobs retention deleted since {@code before} (their states then),
         * holding each to having been in one of the {@code deletable} states, or to being one the
         * step itself completed ({@code settledNow}).
         */
        void forgetTrimmed(Map<String, String> before, Set<String> deletable, Set<String> settledNow) {
            Map<String, String> after = states();
            for (String id : List.copyOf(jobs)) {
                if (!after.containsKey(id)) {
                    String was = before.get(id);
                    assertThat(deletable.contains(was) || settledNow.contains(id))
                            .as("job %s deleted by retention from %s: only finished jobs are deleted", id, was).isTrue();
                    forget(id);
                }
            }
        }

        void operate(int pick, java.util.function.Function<String, ManualTransition> call, Set<String> allowedFrom) {
            if (jobs.isEmpty()) {
                return;
            }
            String id = List.copyOf(jobs).get(pick % jobs.size());
            String before = redis.hget(keys.job(id), "state");
            ManualTransition outcome = call.apply(id);
            assertThat(outcome instanceof ManualTransition.Moved).as("%s from %s", outcome, before)
                    .isEqualTo(allowedFrom.contains(before));
        }

        /**
         * A reschedule of a picked job: moved exactly when it was delayed; then delayed at a due
         * time of at least {@code earliestDue} (the server's now before the call, plus the delay)
         * and at most {@code latestDue} of the server's now after the call, or promoted to pending when the script's now had reached
         * that time.
         */
        void reschedule(int pick, java.util.function.Function<String, ManualTransition> call, long earliestDue,
                java.util.function.LongUnaryOperator latestDue) {
            if (jobs.isEmpty()) {
                return;
            }
            String id = List.copyOf(jobs).get(pick % jobs.size());
            String before = redis.hget(keys.job(id), "state");
            ManualTransition outcome = call.apply(id);
            long after = serverNowMs();
            assertThat(outcome instanceof ManualTransition.Refused).as("%s from %s", outcome, before).isEqualTo(!"delayed".equals(before));
            if (outcome instanceof ManualTransition.Rescheduled moved) {
                rescheduled.add(id);
                assertThat(moved.dueAt().toEpochMilli()).as("the new due time, on the server's clock")
                        .isBetween(earliestDue, latestDue.applyAsLong(after));
                assertThat(redis.zscore(keys.delayed(), id)).isEqualTo((double) moved.dueAt().toEpochMilli());
            } else if (outcome instanceof ManualTransition.Moved moved) {
                assertThat(moved.to()).isEqualTo(JobState.PENDING);
            }
        }

        /** The clock of the server that holds this queue (TIME), in ms. */
        long serverNowMs() {
            List<?> time = (List<?>) redis.eval("return redis.call('TIME')", 1, keys.meta());
            return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
        }

        void forget(String id) {
            jobs.remove(id);
            attempts.remove(id);
            keysOf.getOrDefault(id, List.of()).forEach(idempotency::remove);
            keysOf.remove(id);
        }

        /**
         * A submission whose every job carries an idempotency key may be sent twice by the cluster
         * client, when the reply of the first run was lost (a read timeout on a loaded machine):
         * the second run answers the first run's job as a {@code DUPLICATE} of {@code key}, which
         * the model has not heard of. That answer is judged as the one the first run gave. It can
         * only be a resend: the job it names exists (a key outliving its deleted job is a bug and
         * still fails here), the key names it in Valkey, and after every step the structures hold
         * only jobs the model knows, so a job unknown to the model was made by this very call, and
         * a known one under a key unknown to the model was replaced by it (the window's job).
         */
        Enqueued asFirstRunIfResent(String key, Enqueued answer, Window window) {
            if (answer.outcome() != Enqueued.Outcome.DUPLICATE) {
                return answer;
            }
            assertThat(redis.hgetAll(keys.job(answer.id())))
                    .as("the job a DUPLICATE of key %s unknown to the model names (only a resend of this call explains it)", key)
                    .isNotEmpty();
            assertThat(redis.hget(keys.idempotency(), key)).as("the job key %s names in Valkey", key).isEqualTo(answer.id());
            Enqueued.Outcome first = Enqueued.Outcome.CREATED;
            if (jobs.contains(answer.id())) {
                assertThat(window).as("a known job under a new key: the window's job, replaced by this call").isNotNull();
                assertThat(window.id()).isEqualTo(answer.id());
                first = Enqueued.Outcome.REPLACED;
            }
            System.out.printf("state-machine: a submission with key %s was sent again after a lost reply; judged as its first run's %s%n",
                    key, first);
            return new Enqueued(answer.queue(), answer.id(), answer.state(), false, first);
        }

        void nameByKey(String key, String id) {
            idempotency.put(key, id);
            keysOf.computeIfAbsent(id, k -> new ArrayList<>()).add(key);
        }

        Map<String, String> states() {
            Map<String, String> states = new HashMap<>();
            for (String id : jobs) {
                String state = redis.hget(keys.job(id), "state");
                if (state != null) {
                    states.put(id, state);
                }
            }
            return states;
        }

        /** Reads every structure of the queue in one round trip and checks the invariants. */
        void checkInvariants(Action after) {
            long nowMs = serverNowMs();
            Map<String, Response<List<Tuple>>> sets = new HashMap<>();
            Map<String, Response<Map<String, String>>> hashes = new HashMap<>();
            Response<List<String>> ring;
            Response<List<String>> held;
            Map<String, Response<Set<String>>> laneActive = new HashMap<>();
            try (AbstractPipeline p = redis.pipelined()) {
                ring = p.lrange(keys.ring(), 0, -1);
                held = p.zrange(keys.held(), 0, -1);
                for (String lane : LANES) {
                    laneActive.put(lane, p.smembers(keys.prefix() + "active:" + lane));
                }
                for (String lane : LANES) {
                    sets.put("pending:" + lane, p.zrangeWithScores(keys.pending(lane), 0, -1));
                }
                for (String state : List.of("delayed", "active", "completed", "dead", "cancelled")) {
                    sets.put(state, p.zrangeWithScores(keys.prefix() + state, 0, -1));
                }
                for (String id : jobs) {
                    hashes.put(id, p.hgetAll(keys.job(id)));
                }
                p.sync();
            }

            Map<String, List<String>> where = new HashMap<>();
            sets.forEach((set, members) -> members.get().forEach(t -> where.computeIfAbsent(t.getElement(), k -> new ArrayList<>()).add(set)));
            assertThat(where.keySet()).as("after %s: the structures hold exactly the known jobs (none lost, none invented)", after)
                    .containsExactlyInAnyOrderElementsOf(jobs);

            for (String id : jobs) {
                Map<String, String> job = hashes.get(id).get();
                assertThat(job).as("after %s: job %s exists", after, id).isNotEmpty();
                String state = job.get("state");
                String home = state.equals("pending") ? "pending:" + job.get("lane") : state;
                assertThat(where.get(id)).as("after %s: job %s (%s) is in exactly its state's structure", after, id, state)
                        .containsExactly(home);
                long now = Long.parseLong(job.get("attempts"));
                assertThat(now).as("after %s: attempts of job %s never decrease", after, id).isGreaterThanOrEqualTo(attempts.get(id));
                attempts.put(id, now);
                if (state.equals("delayed")) {
                    double score = sets.get("delayed").get().stream().filter(t -> t.getElement().equals(id)).findFirst().orElseThrow().getScore();
                    assertThat((long) score).as("after %s: delayed job %s scored by its due time", after, id)
                            .isEqualTo(Long.parseLong(job.get("due_at")));
                }
                if (state.equals("active")) {
                    double score = sets.get("active").get().stream().filter(t -> t.getElement().equals(id)).findFirst().orElseThrow().getScore();
                    assertThat((long) score).as("lease scored by its deadline").isEqualTo(Long.parseLong(job.get("lease_until")));
                }
                if (state.equals("pending")) {
                    int priority = Integer.parseInt(job.getOrDefault("priority", "4"));
                    double score = sets.get("pending:" + job.get("lane")).get().stream().filter(t -> t.getElement().equals(id)).findFirst()
                            .orElseThrow().getScore();
                    assertThat((long) score).as("after %s: pending job %s scored by id and priority %d", after, id, priority)
                            .isEqualTo(Long.parseLong(id) - (priority - 4) * 1_000_000L);
                }
            }

            Map<String, List<String>> waiting = new HashMap<>();
            for (String id : jobs) {
                Map<String, String> job = hashes.get(id).get();
                String key = job.get("dedupe");
                if (key != null && key.startsWith("d") && "delayed".equals(job.get("state")) && "0".equals(job.get("attempts"))
                        && Long.parseLong(job.get("due_at")) > nowMs && !rescheduled.contains(id)) {
                    waiting.computeIfAbsent(key, k -> new ArrayList<>()).add(id);
                }
            }
            waiting.forEach((key, ids) -> assertThat(ids)
                    .as("after %s: debounce key %s has at most one job waiting out its window", after, key).hasSizeLessThanOrEqualTo(1));

            Set<String> lanesWithWork = new HashSet<>();
            LANES.forEach(lane -> {
                if (!sets.get("pending:" + lane).get().isEmpty()) {
                    lanesWithWork.add(lane);
                }
            });
            assertThat(ring.get()).as("after %s: the ring holds lanes with work, each once", after).doesNotHaveDuplicates()
                    .isSubsetOf(lanesWithWork);
            assertThat(ring.get()).as("after %s: a held lane is not in the ring", after).noneMatch(held.get()::contains);
            Set<String> ringOrHeld = new HashSet<>(ring.get());
            ringOrHeld.addAll(held.get());
            assertThat(ringOrHeld).as("after %s: every lane with work is in the ring or held", after).containsAll(lanesWithWork);
            if (limits.laneMaxActive().isEmpty() && limits.laneRate().isEmpty()) {
                assertThat(ring.get()).as("after %s: without lane limits the ring holds every lane with work", after)
                        .containsExactlyInAnyOrderElementsOf(lanesWithWork);
            }
            for (String lane : LANES) {
                Set<String> activeInLane = new HashSet<>();
                for (Tuple t : sets.get("active").get()) {
                    if (lane.equals(hashes.get(t.getElement()).get().get("lane"))) {
                        activeInLane.add(t.getElement());
                    }
                }
                if (limits.laneMaxActive().isPresent()) {
                    assertThat(laneActive.get(lane).get()).as("after %s: lane %s's active set is its active jobs", after, lane)
                            .containsExactlyInAnyOrderElementsOf(activeInLane);
                } else {
                    assertThat(activeInLane).as("after %s: lane %s's active set holds only active jobs", after, lane)
                            .containsAll(laneActive.get(lane).get());
                }
            }

            QueueStats stats = client.reads().stats(queue);
            assertThat(stats.total()).isEqualTo(jobs.size());
            assertThat(stats.active()).isEqualTo(sets.get("active").get().size());
            assertThat(stats.paused()).isEqualTo(paused);
        }
    }
}
