package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.effect.EffectOutcome;
import io.echomq.engine.EngineAssembly;
import io.echomq.handler.BatchJobHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.queue.Backoff;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueStats;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What happens after a job ran belongs to one owner, and nothing outside the job's own effect
 * decides its fate: a listener that throws, or a handler that throws an {@link Error}, changes
 * only what it should.
 */
@WithRealServices
class SettlementPathTest {

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

    private static WorkerSettings quick() {
        return WorkerSettings.DEFAULT.withConcurrency(2).withLease(Duration.ofSeconds(2)).withIdlePoll(Duration.ofMillis(20))
                .withBackoff(Backoff.NONE);
    }

    private JobView awaitState(String id, JobState state) {
        try {
            await("job " + id + " " + state.wireName()).atMost(PATIENCE).until(
                    () -> engine.queue.reads().job(engine.queueName, id).map(j -> j.state() == state).orElse(false));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; the job is " + engine.queue.reads().job(engine.queueName, id), e);
        }
        return engine.queue.reads().job(engine.queueName, id).orElseThrow();
    }

    @Test
    void aListenerThatThrowsNeverTurnsACommittedJobIntoARetry() {
        WorkerListener broken = new WorkerListener() {
            @Override
            public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
                throw new IllegalStateException("the metrics backend is down");
            }

            @Override
            public void claimed(ClaimedJob job) {
                throw new IllegalStateException("the console feed is down");
            }
        };
        EngineAssembly withBrokenListener = new EngineAssembly(engine.queue, engine.effects, engine.threads,
                "broken-listener", io.echomq.worker.SafeListener.of(List.of(broken, engine.events)), MaintenanceListener.NONE);
        List<Enqueued> jobs = engine.queue.submissions().enqueueBatch(engine.queueName, java.util.Collections.nCopies(20, NewJob.of(CHARGE)));
        withBrokenListener.startWorker(engine.queueName, new LedgerChargeHandler(), quick());
        try {
            await("20 completions").atMost(PATIENCE).until(() -> engine.events.completions.size() == 20);
        } finally {
            withBrokenListener.stop(Duration.ofSeconds(5));
        }

        assertThat(engine.events.retries).as("retries").isEmpty();
        for (Enqueued job : jobs) {
            assertThat(engine.queue.reads().job(engine.queueName, job.id()).orElseThrow().attempts()).as("attempts of job " + job.id()).isEqualTo(1);
        }
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(20, 20, 0, 2_000));
    }

    @Test
    void anErrorFromAHandlerFailsThatJobOnlyAndItIsRetried() {
        LedgerChargeHandler charge = new LedgerChargeHandler();
        JobHandler firstAttemptOverflows = job -> {
            if (job.attempt() == 1) {
                throw new StackOverflowError("recursion in the handler");
            }
            charge.handle(job);
        };
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withMaxAttempts(3));
        engine.startWorker("w1", firstAttemptOverflows, quick(), FaultInjector.NONE);

        JobView done = awaitState(job.id(), JobState.COMPLETED);

        assertThat(done.attempts()).isEqualTo(2);
        assertThat(engine.events.errors).singleElement().satisfies(e -> assertThat(e).contains("StackOverflowError"));
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(1, 1, 0, 100));
    }

    @Test
    void anErrorInABatchFallsBackToOneByOneSoOnlyTheCulpritFails() {
        LedgerChargeHandler charge = new LedgerChargeHandler();
        BatchJobHandler assertsOnNegative = jobs -> {
            for (JobContext job : jobs) {
                if (job.payload().contains("\"amountCents\":-1")) {
                    throw new AssertionError("a negative amount reached the handler");
                }
            }
            charge.handleBatch(jobs);
        };
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(NewJob.of("{\"account\":\"acct-1\",\"amountCents\":" + (i == 4 ? -1 : 100) + "}").withMaxAttempts(1));
        }
        List<Enqueued> enqueued = engine.queue.submissions().enqueueBatch(engine.queueName, batch);
        engine.startWorker("w1", assertsOnNegative, quick().withConcurrency(1).withBatchSize(10), FaultInjector.NONE);

        await("10 jobs settled").atMost(PATIENCE).until(() -> {
            QueueStats stats = engine.queue.reads().stats(engine.queueName);
            return stats.completed() + stats.dead() == 10;
        });

        assertThat(engine.queue.reads().stats(engine.queueName).dead())
                .as("dead jobs; the first's error: " + engine.queue.reads().job(engine.queueName, enqueued.get(0).id()).orElseThrow().lastError())
                .isEqualTo(1);
        assertThat(engine.queue.reads().job(engine.queueName, enqueued.get(4).id()).orElseThrow().lastError())
                .hasValueSatisfying(e -> assertThat(e).contains("AssertionError"));
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(9, 9, 0, 900));
    }

    @Test
    void aHandlerBlockedInSqlPastItsTimeoutGivesUpItsTransactionAndTheJobIsRetried() {
        LedgerChargeHandler charge = new LedgerChargeHandler();
        JobHandler blocksOnTheFirstAttempt = job -> {
            if (job.attempt() == 1) {
                // pgJDBC ignores interrupts: only a cancel on the server ends this.
                job.transaction().execute("SELECT pg_sleep(60)");
            }
            charge.handle(job);
        };
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withMaxAttempts(3));
        engine.startWorker("w1", blocksOnTheFirstAttempt, quick().withJobTimeout(Duration.ofMillis(500)), FaultInjector.NONE);

        JobView done = awaitState(job.id(), JobState.COMPLETED);

        assertThat(done.attempts()).isEqualTo(2);
        assertThat(engine.events.errors).singleElement().satisfies(e -> assertThat(e).contains("timed out after 500 ms"));
        assertThat(engine.ledger()).isEqualTo(new LedgerSummary(1, 1, 0, 100));
    }
}
