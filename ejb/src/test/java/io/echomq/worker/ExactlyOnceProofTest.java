package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectRecord;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.LockWaits;
import io.echomq.handler.JobHandler;
import io.echomq.lab.CrashPoint;
import io.echomq.lab.SimulatedCrash;
import io.echomq.api.PermanentJobFailure;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.Backoff;
import io.echomq.queue.FailureKind;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.ServerClock;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * At-least-once delivery, exactly-once effect, proven with the real worker, queue and effect
 * store at every crash point of one delivery. Each test asserts outcome counts: ledger entries
 * (the effect), deliveries (claims), and how the job ended.
 */
@WithRealServices
class ExactlyOnceProofTest {

    private static final Duration SHORT_LEASE = Duration.ofMillis(300);
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":500}";

    private final ValkeyService valkey;
    private final PostgresService postgres;
    private Engine engine;
    private final AtomicInteger handlerRuns = new AtomicInteger();
    /** The idempotency key each handler run was given, in order. */
    private final List<String> keysSeen = new CopyOnWriteArrayList<>();

    ExactlyOnceProofTest(ValkeyService valkey, PostgresService postgres) {
        this.valkey = valkey;
        this.postgres = postgres;
    }

    @BeforeEach
    void engine() {
        engine = new Engine(valkey, postgres);
    }

    @AfterEach
    void stop() throws InterruptedException {
        engine.close();
    }

    /** The demo charge, counting how often its code actually runs. */
    private JobHandler countedCharge() {
        LedgerChargeHandler charge = new LedgerChargeHandler();
        return job -> {
            handlerRuns.incrementAndGet();
            keysSeen.add(job.idempotencyKey());
            charge.handle(job);
        };
    }

    private WorkerSettings shortLeases() {
        return WorkerSettings.DEFAULT.withConcurrency(1).withLease(SHORT_LEASE).withIdlePoll(Duration.ofMillis(20));
    }

    private JobView awaitState(String id, JobState state) {
        await("job " + id + " " + state.wireName()).atMost(PATIENCE).until(
                () -> engine.queue.reads().job(engine.queueName, id).map(j -> j.state() == state).orElse(false));
        return engine.queue.reads().job(engine.queueName, id).orElseThrow();
    }

    private ServerClock serverClock() {
        return ServerClock.of(engine.redis, engine.queueName);
    }

    private Optional<EffectRecord> effectOf(String id) {
        return engine.effects.find(engine.queue.reads().job(engine.queueName, id).orElseThrow().identity());
    }

    /**
     * A Valkey failover can lose the increments of the id counter along with the jobs they
     * minted; the next job then gets an id that already has an effect row. It is another job:
     * its effect must be applied, not skipped as the old one's.
     */
    @Test
    void aNewJobGivenAnIdAgainAfterAFailoverIsAppliedNotSkipped() {
        engine.startWorker("w1", countedCharge(), shortLeases(), FaultInjector.NONE);
        Enqueued first = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
        Instant firstCreated = awaitState(first.id(), JobState.COMPLETED).createdAt();

        // What the promoted replica holds when the old primary's last writes never reached it.
        QueueKeys keys = new QueueKeys(engine.queueName);
        engine.redis.del(keys.job(first.id()), keys.history(first.id()), keys.completed(), keys.seq());
        serverClock().awaitPast(firstCreated); // creation times are milliseconds: two jobs minted in one would look alike
        Enqueued second = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
        assertThat(second.id()).as("the id handed out again").isEqualTo(first.id());

        awaitState(second.id(), JobState.COMPLETED);
        assertThat(handlerRuns.get()).as("handler runs: one per job").isEqualTo(2);
        assertThat(engine.ledger().entries()).as("ledger rows: the second job's charge was applied").isEqualTo(2);
        assertThat(engine.events.effects).allMatch(EffectOutcome.Applied.class::isInstance);
        assertThat(keysSeen).as("idempotency keys for outside systems: the new job is not taken for the old one there either")
                .hasSize(2).doesNotHaveDuplicates();
    }

    /**
     * A failover can lose a job that already ran together with its idempotency key, after its
     * submission's answer was lost: the client resubmits with the key, and the promoted replica,
     * knowing neither, makes a new job. The effect store knows the key: the new job completes
     * without running its handler.
     */
    @Test
    void aResubmissionAfterAFailoverLostTheJobAndItsKeyIsNotAppliedAgain() {
        engine.startWorker("w1", countedCharge(), shortLeases(), FaultInjector.NONE);
        NewJob submission = NewJob.of(CHARGE).withIdempotencyKey("order-7");
        Enqueued first = engine.queue.submissions().enqueue(engine.queueName, submission);
        long firstCreatedMs = awaitState(first.id(), JobState.COMPLETED).createdAt().toEpochMilli();

        QueueKeys keys = new QueueKeys(engine.queueName);
        engine.redis.del(keys.job(first.id()), keys.history(first.id()), keys.completed(), keys.seq(), keys.idempotency());
        serverClock().awaitPast(Instant.ofEpochMilli(firstCreatedMs)); // creation times are milliseconds: two jobs minted in one would look alike
        Enqueued resubmitted = engine.queue.submissions().enqueue(engine.queueName, submission);
        assertThat(resubmitted.replayed()).as("Valkey no longer knows the key").isFalse();

        JobView done = awaitState(resubmitted.id(), JobState.COMPLETED);
        assertThat(handlerRuns).as("handler runs").hasValue(1);
        assertThat(engine.ledger().entries()).as("ledger rows: the charge once").isEqualTo(1);
        assertThat(engine.events.effects).hasSize(2);
        assertThat(engine.events.effects.get(1)).isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class, skipped -> {
            assertThat(skipped.byAnotherJob()).isTrue();
            assertThat(skipped.record().jobCreatedMs()).isEqualTo(firstCreatedMs);
        });
        assertThat(engine.effects.find(new JobIdentity(engine.queueName, done.id(), done.createdAt().toEpochMilli(), "order-7")))
                .as("the effect that stands for the new job, as the console shows it")
                .hasValueSatisfying(r -> assertThat(r.jobCreatedMs()).isEqualTo(firstCreatedMs));
    }

    @Test
    void crashAfterCommitBeforeAckIsRedeliveredAndNotAppliedAgain() {
        engine.startMaintenance(Duration.ofMillis(50));
        List<CrashPoint> crashes = new CopyOnWriteArrayList<>();
        engine.startWorker("w1", countedCharge(), shortLeases(), SimulatedCrash.at(CrashPoint.EFFECT, 1).witnessedBy(crashes::add));
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));

        JobView done = awaitState(job.id(), JobState.COMPLETED);

        assertThat(crashes).containsExactly(CrashPoint.EFFECT);
        assertThat(engine.events.claims).as("deliveries").hasSize(2);
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(handlerRuns).as("handler runs").hasValue(1);
        assertThat(engine.events.effects).hasSize(2);
        assertThat(engine.events.effects.get(1)).isInstanceOfSatisfying(EffectOutcome.AlreadyApplied.class,
                skipped -> assertThat(skipped.record().attempt()).isEqualTo(1));
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(1, 1, 0, 500));
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void crashPointSweepNeverLosesAndNeverDoublesTheEffect(CrashPoint point) {
        engine.startMaintenance(Duration.ofMillis(50));
        engine.startWorker("w1", countedCharge(), shortLeases(), SimulatedCrash.at(point, 1));
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));

        JobView done = awaitState(job.id(), JobState.COMPLETED);
        LedgerSummary ledger = engine.ledger();

        assertThat(ledger.entries()).as("effect applied once, never lost").isEqualTo(1);
        assertThat(ledger.duplicates()).isZero();
        long appliedBy = effectOf(job.id()).orElseThrow().attempt();
        switch (point) {
            case LEASE -> {
                // Nothing ran before the crash: a clean re-run applies the effect in attempt 2.
                assertThat(engine.events.claims).as("deliveries").hasSize(2);
                assertThat(appliedBy).isEqualTo(2);
                assertThat(handlerRuns).hasValue(1);
            }
            case EFFECT, ACK -> {
                // The duplicate window: redelivered, the effect store absorbs the second delivery.
                assertThat(engine.events.claims).as("deliveries").hasSize(2);
                assertThat(appliedBy).isEqualTo(1);
                assertThat(handlerRuns).hasValue(1);
            }
            case DONE -> {
                // The acknowledgement landed before the crash: clean, one delivery.
                assertThat(engine.events.claims).as("deliveries").hasSize(1);
                assertThat(appliedBy).isEqualTo(1);
                assertThat(done.attempts()).isEqualTo(1);
            }
        }
    }

    @Test
    void zombieAndSuccessorApplyOneEffectAndTheZombieCannotSettle() throws Exception {
        Engine patient = engine;
        Enqueued job = patient.queue.submissions().enqueue(patient.queueName, NewJob.of(CHARGE));
        // Worker A is paused mid-transaction: it holds the effect key and sends no heartbeat.
        ClaimedJob zombie = patient.queue.leases().claim(patient.queueName, SHORT_LEASE, 1, "zombie").get(0);
        CompletableFuture<Integer> zombieHoldsKey = new CompletableFuture<>();
        CountDownLatch resumeZombie = new CountDownLatch(1);
        CompletableFuture<EffectOutcome> zombieEffect = CompletableFuture.supplyAsync(() -> patient.effects.apply(zombie.lease(), tx -> {
            handlerRuns.incrementAndGet();
            LedgerChargeHandler.charge(tx, patient.queueName, zombie.id(), zombie.attempt(),
                    new io.echomq.demo.Charge("acct-1", 500));
            zombieHoldsKey.complete(LockWaits.backendOf(tx));
            resumeZombie.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        }));
        int zombieBackend = zombieHoldsKey.get(10, TimeUnit.SECONDS);

        // Its lease expires; the reaper returns the job; worker B takes attempt 2 and waits on the key.
        patient.startMaintenance(Duration.ofMillis(50));
        patient.startWorker("successor", countedCharge(), shortLeases(), FaultInjector.NONE);
        await("successor claims attempt 2").atMost(PATIENCE).until(() -> !patient.events.claims.isEmpty());
        assertThat(patient.events.claims.get(0).attempt()).isEqualTo(2);
        // The maintenance runs too: its attach of an effect partition may wait on the zombie a while; the successor is asked about.
        LockWaits.assertWaitsOnAnEffectKey(LockWaits.awaitBlockedBy(patient.jdbi, zombieBackend, "INSERT INTO echomq.effect"));
        assertThat(patient.events.effects).as("the successor is blocked on the zombie's key").isEmpty();

        resumeZombie.countDown();
        assertThat(zombieEffect.get(10, TimeUnit.SECONDS)).isInstanceOf(EffectOutcome.Applied.class);
        assertThat(patient.queue.leases().complete(zombie.lease())).as("the zombie's acknowledgement")
                .isInstanceOfSatisfying(Rejected.class, r -> assertThat(r.reason()).isEqualTo(Rejected.Reason.STALE_TOKEN));

        awaitState(job.id(), JobState.COMPLETED);
        assertThat(patient.events.effects).singleElement().isInstanceOf(EffectOutcome.AlreadyApplied.class);
        assertThat(handlerRuns).as("only the zombie's handler ran").hasValue(1);
        assertThat(patient.ledger()).isEqualTo(new LedgerSummary(1, 1, 0, 500));
    }

    @Test
    void aRedeliveryThatMeetsItsZombiesHeldKeyWaitsWithoutSpendingTheJobsAttempts() throws Exception {
        engine.close();
        engine = new Engine(valkey, postgres, new EffectSettings(Duration.ofMillis(300),
                EffectSettings.DEFAULT.idleInTransactionTimeout(), EffectSettings.DEFAULT.idempotencyWindow()));
        Engine patient = engine;
        // Two attempts: the zombie's and the successor's, which meets the held key.
        Enqueued job = patient.queue.submissions().enqueue(patient.queueName, NewJob.of(CHARGE).withMaxAttempts(2));
        ClaimedJob zombie = patient.queue.leases().claim(patient.queueName, SHORT_LEASE, 1, "zombie").get(0);
        ZombieHoldingKey held = ZombieHoldingKey.holding(patient, zombie);
        patient.startMaintenance(Duration.ofMillis(50));
        // A backoff long enough to look at the job between the contended attempt and the next.
        patient.startWorker("successor", countedCharge(), shortLeases().withBackoff(new Backoff(Duration.ofSeconds(2),
                Duration.ofSeconds(2))), FaultInjector.NONE);

        await("the successor's attempt 2 meets the held key").atMost(PATIENCE).until(() -> !patient.events.errors.isEmpty());
        assertThat(patient.queue.reads().job(patient.queueName, job.id()).orElseThrow()).as("not dead: the attempt did not count")
                .satisfies(j -> assertThat(j.state()).isEqualTo(JobState.DELAYED));
        held.letGo();

        JobView done = awaitState(job.id(), JobState.COMPLETED);
        assertThat(patient.events.errors).first().satisfies(e -> assertThat(e).contains("held by another transaction"));
        assertThat(done.attempts()).isGreaterThanOrEqualTo(3);
        assertThat(handlerRuns).hasValue(1);
        assertThat(patient.ledger()).isEqualTo(new LedgerSummary(1, 1, 0, 500));
    }

    @Test
    void failingHandlerIsRolledBackRetriedAndAppliedOnce() {
        AtomicInteger calls = new AtomicInteger();
        JobHandler flaky = job -> {
            keysSeen.add(job.idempotencyKey());
            LedgerChargeHandler.charge(job.transaction(), job.queue(), job.jobId(), job.attempt(),
                    new io.echomq.demo.Charge("acct-1", 500));
            if (calls.incrementAndGet() < 3) {
                throw new IllegalStateException("gateway timeout " + calls.get());
            }
        };
        engine.startWorker("w1", flaky, shortLeases().withBackoff(new Backoff(Duration.ofMillis(20), Duration.ofMillis(50))),
                FaultInjector.NONE);
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withMaxAttempts(5));

        JobView done = awaitState(job.id(), JobState.COMPLETED);

        assertThat(done.attempts()).isEqualTo(3);
        assertThat(engine.events.retries).hasSize(2).allSatisfy(r -> assertThat(r).isInstanceOf(RetryOutcome.Scheduled.class));
        assertThat(engine.ledger()).as("the failed attempts' writes were rolled back").isEqualTo(new LedgerSummary(1, 1, 0, 500));
        assertThat(effectOf(job.id()).orElseThrow().attempt()).isEqualTo(3);
        assertThat(keysSeen).as("one idempotency key on every delivery").hasSize(3).containsOnly(keysSeen.get(0));
    }

    @Test
    void alwaysFailingHandlerIsDeadAtMaxAttemptsWithItsErrorAndNoEffect() {
        JobHandler broken = job -> {
            LedgerChargeHandler.charge(job.transaction(), job.queue(), job.jobId(), job.attempt(),
                    new io.echomq.demo.Charge("acct-1", 500));
            throw new IllegalStateException("bank is down");
        };
        engine.startWorker("w1", broken, shortLeases().withBackoff(Backoff.NONE), FaultInjector.NONE);
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withMaxAttempts(3));

        JobView dead = awaitState(job.id(), JobState.DEAD);
        // The worker reports the last retry after the script that made the job dead returned.
        await("the third failure reported").atMost(PATIENCE).until(() -> engine.events.retries.size() == 3);

        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.lastError()).hasValueSatisfying(e -> assertThat(e).contains("bank is down"));
        assertThat(engine.events.retries).hasSize(3).last().isInstanceOf(RetryOutcome.DeadLettered.class);
        assertThat(engine.ledger().entries()).isZero();
        assertThat(effectOf(job.id())).isEmpty();
    }

    @Test
    void permanentFailureIsDeadAtOnce() {
        engine.startWorker("w1", countedCharge(), shortLeases(), FaultInjector.NONE);
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of("{\"account\":\"acct-1\",\"amountCents\":-5}"));

        JobView dead = awaitState(job.id(), JobState.DEAD);

        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).hasValueSatisfying(e -> assertThat(e).contains("amountCents").contains("must be positive"));
        assertThat(engine.ledger().entries()).isZero();
    }

    @Test
    void aJobWhoseEffectCommittedButWhichDiedIsCompletedByTheReconciler() {
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withMaxAttempts(1));
        ClaimedJob claimed = engine.queue.leases().claim(engine.queueName, Duration.ofSeconds(30), 1, "w").get(0);
        engine.effects.apply(claimed.lease(), tx -> LedgerChargeHandler.charge(tx, engine.queueName, claimed.id(),
                claimed.attempt(), new io.echomq.demo.Charge("acct-1", 500)));
        // The acknowledgement is lost and the last attempt is reported failed: the job is dead.
        engine.queue.leases().retry(claimed.lease(), "connection reset during complete", Backoff.NONE, FailureKind.RETRYABLE);
        assertThat(engine.queue.reads().job(engine.queueName, job.id()).orElseThrow().state()).isEqualTo(JobState.DEAD);

        io.echomq.maintenance.Pass pass = engine.maintenanceNotStarted().runOnce();

        assertThat(pass.reconciled()).isEqualTo(1);
        JobView view = engine.queue.reads().job(engine.queueName, job.id()).orElseThrow();
        assertThat(view.state()).isEqualTo(JobState.COMPLETED);
        assertThat(view.note()).hasValueSatisfying(n -> assertThat(n).contains("reconciler").contains("attempt 1"));
        assertThat(engine.ledger().entries()).isEqualTo(1);
    }

    @Test
    void heartbeatKeepsALongJobLeasedSoItRunsOnce() {
        engine.startMaintenance(Duration.ofMillis(50));
        JobHandler slow = job -> {
            Thread.sleep(SHORT_LEASE.multipliedBy(4).toMillis());
            countedCharge().handle(job);
        };
        engine.startWorker("w1", slow, shortLeases(), FaultInjector.NONE);
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));

        awaitState(job.id(), JobState.COMPLETED);

        assertThat(engine.events.claims).as("deliveries").hasSize(1);
        assertThat(engine.ledger().entries()).isEqualTo(1);
    }

    @Test
    void aHandlerPastItsHardTimeoutIsInterruptedAndRetried() {
        AtomicInteger calls = new AtomicInteger();
        JobHandler hangsOnce = job -> {
            if (calls.incrementAndGet() == 1) {
                Thread.sleep(Duration.ofMinutes(5).toMillis());
            }
            countedCharge().handle(job);
        };
        engine.startWorker("w1", hangsOnce, shortLeases().withJobTimeout(Duration.ofMillis(400)).withBackoff(Backoff.NONE),
                FaultInjector.NONE);
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));

        JobView done = awaitState(job.id(), JobState.COMPLETED);

        assertThat(done.attempts()).isEqualTo(2);
        assertThat(engine.events.errors).singleElement().asString().contains("timed out after 400 ms");
        assertThat(engine.ledger().entries()).isEqualTo(1);
    }

    @Test
    void stoppingLetsTheRunningJobFinishAndClaimsNothingMore() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        JobHandler slow = job -> {
            started.countDown();
            Thread.sleep(300);
            countedCharge().handle(job);
        };
        QueueWorker worker = engine.startWorker("w1", slow, shortLeases(), FaultInjector.NONE);
        Enqueued first = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Enqueued second = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));

        assertThat(worker.stop(Duration.ofSeconds(5))).as("stopped within the grace period").isTrue();

        assertThat(engine.queue.reads().job(engine.queueName, first.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        assertThat(engine.queue.reads().job(engine.queueName, second.id()).orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(worker.stop(Duration.ofSeconds(1))).as("a second stop is harmless").isTrue();
    }
}
