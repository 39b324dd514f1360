package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.handler.JobHandler;
import io.echomq.queue.Backoff;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobEvent;
import io.echomq.queue.JobState;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.Progress;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a running handler tells its worker, and learns from it, through the lease's fenced heartbeat. */
@WithRealServices
class JobSignalsTest {

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

    /** A long lease: its heartbeat (every 10 s) is not what carries a report. */
    private static WorkerSettings slowHeartbeat() {
        return WorkerSettings.DEFAULT.withConcurrency(1).withLease(Duration.ofSeconds(30)).withIdlePoll(Duration.ofMillis(20))
                .withBackoff(Backoff.NONE);
    }

    private JobView job(String id) {
        return engine.queue.reads().job(engine.queueName, id).orElseThrow();
    }

    private static WorkerSettings quickHeartbeat() {
        return WorkerSettings.DEFAULT.withConcurrency(1).withLease(Duration.ofMillis(1_500)).withIdlePoll(Duration.ofMillis(20))
                .withBackoff(Backoff.NONE);
    }

    @Test
    void aHandlerThatStopsOnACancelRequestEndsItCancelledWithItsEffectRolledBack() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        LedgerChargeHandler charge = new LedgerChargeHandler();
        JobHandler handler = job -> {
            charge.handle(job);                       // written in the effect transaction...
            started.countDown();
            for (int i = 0; i < 400; i++) {
                job.stopIfCancelRequested();          // ...and rolled back when the handler stops
                Thread.sleep(50);
            }
        };
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withMaxAttempts(3));
        engine.startWorker("w1", handler, quickHeartbeat(), FaultInjector.NONE);
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

        assertThat(engine.queue.admin().cancel(engine.queueName, job.id())).isInstanceOf(ManualTransition.CancelRequested.class);

        await("cancelled").atMost(PATIENCE).until(() -> job(job.id()).state() == JobState.CANCELLED);
        JobView cancelled = job(job.id());
        assertThat(cancelled.attempts()).as("stopped in its first attempt, not retried").isEqualTo(1);
        assertThat(engine.ledger().entries()).as("the effect was rolled back").isZero();
        assertThat(engine.effects.find(cancelled.identity())).isEmpty();
        assertThat(engine.queue.reads().history(engine.queueName, job.id())).extracting(JobEvent::event)
                .contains("cancel-requested", "cancelled").doesNotContain("retried", "completed");
    }

    @Test
    void aHandlerThatCommitsDespiteTheRequestEndsCompleted() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        LedgerChargeHandler charge = new LedgerChargeHandler();
        JobHandler handler = job -> {
            started.countDown();
            for (int i = 0; i < 400 && !job.cancelRequested(); i++) {
                Thread.sleep(50);
            }
            assertThat(job.cancelRequested()).isTrue();
            charge.handle(job);                       // seen, and committed anyway: the effect stands
        };
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
        engine.startWorker("w1", handler, quickHeartbeat(), FaultInjector.NONE);
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

        assertThat(engine.queue.admin().cancel(engine.queueName, job.id())).isInstanceOf(ManualTransition.CancelRequested.class);

        await("completed").atMost(PATIENCE).until(() -> job(job.id()).state() == JobState.COMPLETED);
        assertThat(engine.ledger().entries()).as("invariant 6: its effect committed, so it ends completed").isEqualTo(1);
    }

    /**
     * The heartbeat that would tell the handler comes every 10 s; the attempt fails long before
     * it. The request must not be lost: the job ends cancelled, and its retry never applies the
     * effect the operator cancelled.
     */
    @Test
    void anAttemptThatFailsBeforeItsHandlerLearnsOfTheCancelEndsTheJobCancelledNotRetried() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch fail = new CountDownLatch(1);
        LedgerChargeHandler charge = new LedgerChargeHandler();
        JobHandler handler = job -> {
            if (job.attempt() == 1) {
                started.countDown();
                fail.await(20, TimeUnit.SECONDS);
                throw new IllegalStateException("the payment provider timed out");
            }
            charge.handle(job);
        };
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withMaxAttempts(3));
        engine.startWorker("w1", handler, slowHeartbeat(), FaultInjector.NONE);
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

        assertThat(engine.queue.admin().cancel(engine.queueName, job.id())).isInstanceOf(ManualTransition.CancelRequested.class);
        fail.countDown();

        await("finished").atMost(PATIENCE).until(() -> job(job.id()).state().isFinished());
        assertThat(job(job.id()).state()).isEqualTo(JobState.CANCELLED);
        assertThat(job(job.id()).attempts()).as("not run again").isEqualTo(1);
        assertThat(engine.ledger().entries()).as("the cancelled effect never applied").isZero();
        assertThat(engine.queue.reads().history(engine.queueName, job.id())).extracting(JobEvent::event)
                .contains("cancel-requested", "cancelled").doesNotContain("retried", "completed");
    }

    @Test
    void stoppingWithoutARequestIsAnOrdinaryFailureAndTheJobIsRetried() {
        JobHandler handler = job -> {
            if (job.attempt() == 1) {
                throw new io.echomq.handler.JobCancelledException("no one asked");
            }
            new LedgerChargeHandler().handle(job);
        };
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withMaxAttempts(3));
        engine.startWorker("w1", handler, quickHeartbeat(), FaultInjector.NONE);

        await("completed").atMost(PATIENCE).until(() -> job(job.id()).state() == JobState.COMPLETED);
        assertThat(job(job.id()).attempts()).isEqualTo(2);
    }

    @Test
    void progressShowsWithinASecondWhileTheJobRunsAndStaysWhenItCompletes() throws Exception {
        CountDownLatch reported = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        LedgerChargeHandler charge = new LedgerChargeHandler();
        JobHandler handler = job -> {
            for (int i = 0; i <= 42; i++) {
                job.progress(i, "step " + i);   // many reports, one heartbeat: only the latest is sent
            }
            job.progress(42, "resizing");
            reported.countDown();
            release.await(20, TimeUnit.SECONDS);
            charge.handle(job);
        };
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
        engine.startWorker("w1", handler, slowHeartbeat(), FaultInjector.NONE);

        assertThat(reported.await(20, TimeUnit.SECONDS)).isTrue();
        long reportedAt = System.nanoTime();
        await("progress visible").atMost(Duration.ofSeconds(5)).until(() -> job(job.id()).progress().map(p -> p.percent() == 42).orElse(false));
        assertThat(Duration.ofNanos(System.nanoTime() - reportedAt)).as("visible within about a second").isLessThan(Duration.ofMillis(1_500));
        assertThat(job(job.id()).state()).isEqualTo(JobState.ACTIVE);
        Progress.Reported shown = job(job.id()).progress().orElseThrow();
        assertThat(shown.message()).isEqualTo("resizing");
        assertThat(shown.attempt()).isEqualTo(1);

        release.countDown();
        await("completed").atMost(PATIENCE).until(() -> job(job.id()).state() == JobState.COMPLETED);
        assertThat(job(job.id()).progress()).hasValueSatisfying(p -> assertThat(p.percent()).isEqualTo(42));
    }
}
