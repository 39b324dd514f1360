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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A worker's free runners wait without each waking on the clock: one watches for the next turn,
 * the others sleep until handed work (issue 39). What a user could lose by that, and must not:
 * a job that arrives while the other runners are busy waits for the watch to be handed on, and
 * a stop waits for the sleepers to wake. Both are asked here against the second a sleeper
 * would otherwise sleep.
 */
@WithRealServices
class FreeRunnersTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final Duration IDLE_POLL = Duration.ofMillis(50);
    /** Ten idle polls, and half the longest sleep of a runner off the watch. */
    private static final Duration PROMPTLY = Duration.ofMillis(500);
    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":100}";
    private static final String HOLD = "{\"account\":\"acct-hold\",\"amountCents\":100}";

    private Engine engine;

    @BeforeEach
    void engine(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
    }

    @AfterEach
    void stop() throws InterruptedException {
        engine.close();
    }

    @Test
    void aJobArrivingWhileEveryOtherRunnerIsBusyIsRunByTheOneLeftFreeWithinAFewIdlePolls() throws InterruptedException {
        int concurrency = 4;
        AtomicInteger holding = new AtomicInteger();
        CountDownLatch[] release = {new CountDownLatch(1)};
        LedgerChargeHandler charge = new LedgerChargeHandler();
        JobHandler handler = job -> {
            if (job.payload().contains("acct-hold")) {
                CountDownLatch mine = release[0];
                holding.incrementAndGet();
                mine.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
                holding.decrementAndGet();
            }
            charge.handle(job);
        };
        engine.startWorker("w1", handler, WorkerSettings.DEFAULT.withConcurrency(concurrency).withIdlePoll(IDLE_POLL).withLeaseAhead(false),
                FaultInjector.NONE);

        // Several rounds: which runner watches when the held jobs arrive differs from round to round.
        for (int round = 1; round <= 5; round++) {
            int completedBefore = engine.events.completions.size();
            engine.queue.submissions().enqueueBatch(engine.queueName, Collections.nCopies(concurrency - 1, NewJob.of(HOLD)));
            await("round " + round + ": three runners hold a job").atMost(PATIENCE).until(() -> holding.get() == concurrency - 1);

            long sent = System.nanoTime();
            engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
            await("round " + round + ": the fourth job applied").atMost(PATIENCE)
                    .until(() -> engine.events.completions.size() == completedBefore + 1);
            Duration waited = Duration.ofNanos(System.nanoTime() - sent);

            assertThat(waited).as("round %d: enqueue to effect of the job the free runner ran", round).isLessThan(PROMPTLY);
            release[0].countDown();
            release[0] = new CountDownLatch(1);
            await().atMost(PATIENCE).until(() -> engine.events.completions.size() == completedBefore + concurrency);
        }
        assertThat(engine.ledger().entries()).isEqualTo(5 * concurrency);
    }

    @Test
    void anIdleWorkerOfManyRunnersStopsWithoutWaitingForItsSleepingRunners() {
        QueueWorker worker = engine.startWorker("w1", new LedgerChargeHandler(),
                WorkerSettings.DEFAULT.withConcurrency(8).withIdlePoll(IDLE_POLL), FaultInjector.NONE);
        // Idle: past the first back-off, so seven runners sleep off the watch.
        await().atMost(PATIENCE).until(() -> engine.events.claimCalls.size() >= 10);

        long start = System.nanoTime();
        boolean stopped = worker.stop(Duration.ofSeconds(5));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(stopped).isTrue();
        assertThat(took).as("stop of an idle worker of 8 runners").isLessThan(PROMPTLY);
    }
}
