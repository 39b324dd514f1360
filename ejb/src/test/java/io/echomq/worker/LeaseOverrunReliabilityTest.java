package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.handler.JobHandler;
import io.echomq.outbox.Outbox;
import io.echomq.queue.NewJob;
import io.echomq.reliability.ReliabilityChecker;
import io.echomq.reliability.ReliabilitySize;
import io.echomq.reliability.Verdict;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/**
 * Scenario 3: jobs that run three times longer than their lease. With the heartbeat, each is
 * delivered once. Without it (the worker's timer thread starved, so no extension is ever sent),
 * each lease expires mid-job and a second worker takes the job over: the successor waits on the
 * first attempt's effect row, finds the effect applied and completes; the first attempt's late
 * settlement is refused. Either way, nothing lost and nothing applied twice.
 */
@WithRealServices
class LeaseOverrunReliabilityTest {

    private static final int JOBS = ReliabilitySize.pick(24, 200);
    private static final Duration LEASE = Duration.ofMillis(600);
    private static final Duration JOB_TIME = LEASE.multipliedBy(3);
    private static final Duration DRAIN_LIMIT = Duration.ofMinutes(3);

    private static final JobHandler OVERRUNS_ITS_LEASE = job -> {
        Thread.sleep(JOB_TIME.toMillis());
        new LedgerChargeHandler().handle(job);
    };

    @Test
    void withTheHeartbeatALongJobIsDeliveredOnce(ValkeyService valkey, PostgresService postgres) throws Exception {
        try (Engine engine = new Engine(valkey, postgres)) {
            engine.startMaintenance(Duration.ofMillis(100));
            engine.startWorker("heartbeating", OVERRUNS_ITS_LEASE, leases(), FaultInjector.NONE);
            Verdict verdict = runAll(engine, "lease-overrun-with-heartbeat");
            verdict.assertNothingLostNothingTwice();
            assertThat(verdict.deliveries()).as("one delivery per job").isEqualTo(JOBS);
        }
    }

    @Test
    void withoutTheHeartbeatTheSuccessorTakesOverAndTheEffectStillAppliesOnce(ValkeyService valkey, PostgresService postgres)
            throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ScheduledExecutorService starvedTimers = Executors.newSingleThreadScheduledExecutor();
        // The timer thread's only thread blocks here, so no heartbeat (and no job timeout) ever runs.
        starvedTimers.execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (Engine engine = new Engine(valkey, postgres)) {
            engine.startMaintenance(Duration.ofMillis(100));
            QueueWorker silent = new QueueWorker(engine.queueName, OVERRUNS_ITS_LEASE, engine.queue.leases(), engine.effects, Outbox.NONE, leases(),
                    "no-heartbeat", starvedTimers, FaultInjector.NONE, engine.events);
            silent.start(engine.loops);
            engine.startWorker("successor", OVERRUNS_ITS_LEASE, leases(), FaultInjector.NONE);
            Verdict verdict = runAll(engine, "lease-overrun-without-heartbeat");
            release.countDown();
            silent.stop(Duration.ofSeconds(5));
            verdict.assertNothingLostNothingTwice();
            assertThat(verdict.deliveries()).as("leases expired mid-job were delivered again").isGreaterThan(JOBS);
            assertThat(verdict.fenced()).as("the overrun attempts' late settlements are refused").isPositive();
        } finally {
            starvedTimers.shutdownNow();
        }
    }

    private static WorkerSettings leases() {
        return WorkerSettings.DEFAULT.withLease(LEASE).withConcurrency(4).withJobTimeout(JOB_TIME.multipliedBy(10));
    }

    private static Verdict runAll(Engine engine, String scenario) throws InterruptedException {
        List<String> ids = new ArrayList<>();
        long started = System.nanoTime();
        for (int n = 0; n < JOBS; n++) {
            ids.add(engine.queue.submissions().enqueue(engine.queueName, NewJob.of("{\"account\":\"acct-" + n % 4 + "\",\"amountCents\":100}")
                    .withMaxAttempts(50)).id());
        }
        ReliabilityChecker.awaitDrained(engine.queue, engine.queueName, JOBS, DRAIN_LIMIT);
        long drainedMs = (System.nanoTime() - started) / 1_000_000;
        // Every job overruns its lease: each is one fault.
        return ReliabilityChecker.check(scenario, JOBS, 0, engine.queue, engine.queueName, engine.jdbi, ids)
                .with("lease_ms", LEASE.toMillis())
                .with("job_ms", JOB_TIME.toMillis())
                .with("drain_ms", drainedMs)
                .print();
    }
}
