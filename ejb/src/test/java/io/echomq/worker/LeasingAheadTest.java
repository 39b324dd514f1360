package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.handler.JobHandler;
import io.echomq.queue.NewJob;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When a worker leases jobs before a runner is free: short jobs up to two ahead per runner, so
 * one round trip serves several of them; long jobs never, so a job does not wait behind one
 * while another worker could run it.
 */
@WithRealServices
class LeasingAheadTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":100}";

    private Engine engine;

    @BeforeEach
    void engine(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
    }

    @AfterEach
    void stop() throws InterruptedException {
        engine.close();
    }

    /**
     * Drains {@code jobs} demo charges through a worker of {@code concurrency} runners, one job
     * per transaction, each taking {@code pause} first. Returns the most jobs of the queue leased
     * at once, as every {@code every}th job saw it.
     */
    private long drainNotingMostLeased(int jobs, int concurrency, int every, Duration pause) {
        return drainNotingMostLeased(jobs, WorkerSettings.DEFAULT.withConcurrency(concurrency), every, pause);
    }

    private long drainNotingMostLeased(int jobs, WorkerSettings settings, int every, Duration pause) {
        engine.queue.submissions().enqueueBatch(engine.queueName, Collections.nCopies(jobs, NewJob.of(CHARGE)));
        AtomicLong mostLeased = new AtomicLong();
        AtomicInteger handled = new AtomicInteger();
        LedgerChargeHandler charge = new LedgerChargeHandler();
        JobHandler oneAtATime = job -> {
            if (handled.incrementAndGet() % every == 0) {
                mostLeased.accumulateAndGet(engine.queue.reads().stats(engine.queueName).active(), Math::max);
            }
            if (!pause.isZero()) {
                Thread.sleep(pause.toMillis());
            }
            charge.handle(job);
        };
        engine.startWorker("w1", oneAtATime, settings, FaultInjector.NONE);
        await("all jobs completed").atMost(PATIENCE).until(() -> engine.events.completions.size() == jobs);
        return mostLeased.get();
    }

    @Test
    void shortJobsAreLeasedAheadSoOneRoundTripServesSeveral() {
        int jobs = 600;
        int concurrency = 4;

        long mostLeased = drainNotingMostLeased(jobs, concurrency, 10, Duration.ZERO);

        assertThat(mostLeased).as("jobs leased at once by a worker of " + concurrency + " runners").isGreaterThan(concurrency);
        long callsWithJobs = engine.events.claimCalls.stream().filter(n -> n > 0).count();
        // One job per call would be one round trip per job; leased ahead, a call serves two to four.
        assertThat(callsWithJobs).as("claim calls for " + jobs + " jobs").isLessThan(jobs * 2 / 3);
        assertThat(engine.ledger().entries()).isEqualTo(jobs);
        assertThat(engine.ledger().duplicates()).isZero();
    }

    @Test
    void longJobsAreLeasedOnlyForAFreeRunner() {
        int jobs = 8;
        int concurrency = 2;

        long mostLeased = drainNotingMostLeased(jobs, concurrency, 1, Duration.ofMillis(60));

        assertThat(mostLeased).as("jobs leased at once by a worker of " + concurrency + " runners").isLessThanOrEqualTo(concurrency);
        List<Integer> leasedPerCall = engine.events.claimCalls.stream().filter(n -> n > 0).toList();
        assertThat(leasedPerCall).as("jobs per claim call").allMatch(n -> n <= concurrency);
        assertThat(engine.ledger().entries()).isEqualTo(jobs);
    }

    /** The resource adapter's runners stand for message endpoints: a job is leased only for a free one, however short. */
    @Test
    void aWorkerThatMustNotLeaseAheadLeasesShortJobsOnlyForAFreeRunner() {
        int jobs = 600;
        int concurrency = 4;

        long mostLeased = drainNotingMostLeased(jobs, WorkerSettings.DEFAULT.withConcurrency(concurrency).withLeaseAhead(false), 1,
                Duration.ZERO);

        assertThat(mostLeased).as("jobs leased at once by a worker of " + concurrency + " runners").isLessThanOrEqualTo(concurrency);
        List<Integer> leasedPerCall = engine.events.claimCalls.stream().filter(n -> n > 0).toList();
        assertThat(leasedPerCall).as("jobs per claim call").allMatch(n -> n <= concurrency);
        assertThat(engine.ledger().entries()).isEqualTo(jobs);
        assertThat(engine.ledger().duplicates()).isZero();
    }
}
