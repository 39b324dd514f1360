package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectSettings;
import io.echomq.handler.BatchJobHandler;
import io.echomq.lab.CrashPoint;
import io.echomq.lab.SimulatedCrash;
import io.echomq.queue.Backoff;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobState;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueStats;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The batched effect mode keeps the per-job guarantees: many jobs per transaction, yet every
 * job's effect once, a poison job failing alone, and a key held by a zombie blocking only its
 * own job. Real worker, queue and effect store.
 */
@WithRealServices
class BatchedEffectProofTest {

    private static final Duration SHORT_LEASE = Duration.ofMillis(500);
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final int JOBS = 20;

    private final ValkeyService valkey;
    private final PostgresService postgres;
    private Engine engine;
    private final AtomicInteger handlerRuns = new AtomicInteger();
    private final AtomicInteger batchCalls = new AtomicInteger();

    BatchedEffectProofTest(ValkeyService valkey, PostgresService postgres) {
        this.valkey = valkey;
        this.postgres = postgres;
    }

    @AfterEach
    void stop() throws InterruptedException {
        engine.close();
    }

    /** The demo charge, set-wise, counting the jobs its code runs for and its calls. */
    private BatchJobHandler countedBatchCharge() {
        LedgerChargeHandler charge = new LedgerChargeHandler();
        return jobs -> {
            batchCalls.incrementAndGet();
            handlerRuns.addAndGet(jobs.size());
            charge.handleBatch(jobs);
        };
    }

    private static WorkerSettings batchesOfTen() {
        return WorkerSettings.DEFAULT.withConcurrency(1).withLease(SHORT_LEASE).withIdlePoll(Duration.ofMillis(20))
                .withBatchSize(10).withBackoff(Backoff.NONE);
    }

    private List<Enqueued> enqueueCharges(int count) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(NewJob.of("{\"account\":\"acct-" + (i % 3) + "\",\"amountCents\":100}").withMaxAttempts(50));
        }
        return engine.queue.submissions().enqueueBatch(engine.queueName, jobs);
    }

    private void awaitSettled(int count) {
        await(count + " jobs settled").atMost(PATIENCE).until(() -> {
            QueueStats stats = engine.queue.reads().stats(engine.queueName);
            return stats.completed() + stats.dead() == count;
        });
    }

    @Test
    void aBatchIsOneTransactionAndEveryJobIsAppliedOnce() {
        engine = new Engine(valkey, postgres);
        enqueueCharges(JOBS);
        engine.startWorker("w1", countedBatchCharge(), batchesOfTen(), FaultInjector.NONE);

        awaitSettled(JOBS);

        assertThat(engine.queue.reads().stats(engine.queueName).completed()).isEqualTo(JOBS);
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(JOBS, JOBS, 0, JOBS * 100L));
        assertThat(handlerRuns).hasValue(JOBS);
        assertThat(batchCalls.get()).as("set-wise calls").isLessThan(JOBS);
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void crashPointSweepOverBatchesNeverLosesAndNeverDoublesTheEffect(CrashPoint point) {
        engine = new Engine(valkey, postgres);
        engine.startMaintenance(Duration.ofMillis(50));
        enqueueCharges(JOBS);
        List<CrashPoint> crashes = new CopyOnWriteArrayList<>();
        engine.startWorker("w1", countedBatchCharge(), batchesOfTen(), SimulatedCrash.at(point, 1).witnessedBy(crashes::add));

        await("all completed").atMost(PATIENCE).until(() -> engine.queue.reads().stats(engine.queueName).completed() == JOBS);

        LedgerSummary ledger = engine.ledger();
        assertThat(ledger.distinctJobs()).as("nothing lost").isEqualTo(JOBS);
        assertThat(ledger.duplicates()).as("no effect twice").isZero();
        assertThat(crashes).isNotEmpty().containsOnly(point);
        if (point == CrashPoint.EFFECT || point == CrashPoint.ACK) {
            // Every crashed batch had committed: its redelivery found the effects and skipped them.
            assertThat(handlerRuns).as("handler runs").hasValue(JOBS);
            assertThat(engine.events.effects.stream().filter(EffectOutcome.AlreadyApplied.class::isInstance)).isNotEmpty();
        }
    }

    @Test
    void heartbeatsKeepALongBatchLeasedSoEachJobIsDeliveredOnce() {
        engine = new Engine(valkey, postgres);
        engine.startMaintenance(Duration.ofMillis(50));
        BatchJobHandler charge = countedBatchCharge();
        BatchJobHandler slow = jobs -> {
            Thread.sleep(SHORT_LEASE.multipliedBy(4).toMillis());
            charge.handleBatch(jobs);
        };
        enqueueCharges(JOBS);
        engine.startWorker("w1", slow, batchesOfTen(), FaultInjector.NONE);

        awaitSettled(JOBS);

        assertThat(engine.events.claims).as("deliveries").hasSize(JOBS);
        assertThat(engine.events.rejectedCompletions).isEmpty();
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(JOBS, JOBS, 0, JOBS * 100L));
    }

    @Test
    void aPoisonJobFailsAloneAndItsNeighboursCommit() {
        engine = new Engine(valkey, postgres);
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int cents = i == 4 ? -1 : 100;
            jobs.add(NewJob.of("{\"account\":\"acct-1\",\"amountCents\":" + cents + "}").withMaxAttempts(1));
        }
        List<Enqueued> enqueued = engine.queue.submissions().enqueueBatch(engine.queueName, jobs);
        engine.startWorker("w1", countedBatchCharge(), batchesOfTen(), FaultInjector.NONE);

        awaitSettled(10);

        assertThat(engine.queue.reads().stats(engine.queueName).dead()).isEqualTo(1);
        assertThat(engine.queue.reads().job(engine.queueName, enqueued.get(4).id()).orElseThrow().lastError())
                .hasValueSatisfying(e -> assertThat(e).contains("must be positive"));
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(9, 9, 0, 900));
    }

    @Test
    void aKeyHeldByAZombieBlocksOnlyItsOwnJobNotItsBatch() throws Exception {
        engine = new Engine(valkey, postgres, new EffectSettings(Duration.ofMillis(300),
                EffectSettings.DEFAULT.idleInTransactionTimeout(), EffectSettings.DEFAULT.idempotencyWindow()));
        enqueueCharges(5);
        // A zombie holds the first job's effect key in an open transaction, past its lease.
        ClaimedJob zombie = engine.queue.leases().claim(engine.queueName, SHORT_LEASE, 1, "zombie").get(0);
        ZombieHoldingKey held = ZombieHoldingKey.holding(engine, zombie);
        engine.startMaintenance(Duration.ofMillis(50));
        await("the zombie's job reaped").atMost(PATIENCE).until(
                () -> engine.queue.reads().job(engine.queueName, zombie.id()).map(j -> j.state() == JobState.PENDING).orElse(false));

        // The worker leases all five in one batch; the batch waits on the held key, then runs job by job.
        engine.startWorker("w1", countedBatchCharge(), batchesOfTen(), FaultInjector.NONE);
        await("the other four completed").atMost(PATIENCE).until(() -> engine.queue.reads().stats(engine.queueName).completed() >= 4);
        assertThat(engine.ledger().distinctJobs()).as("neighbours committed while the key was held").isEqualTo(4);
        assertThat(engine.events.claims.get(0).id()).isEqualTo(zombie.id());

        held.letGo();
        await("all completed").atMost(PATIENCE).until(() -> engine.queue.reads().stats(engine.queueName).completed() == 5);
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(5, 5, 0, 500));
    }
}
