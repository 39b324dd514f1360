package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.api.JobRequest;
import io.echomq.api.PermanentJobFailure;
import io.echomq.handler.BatchJobHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import io.echomq.lab.CrashPoint;
import io.echomq.lab.SimulatedCrash;
import io.echomq.queue.Backoff;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Follow-up jobs and results written in the job's own effect transaction, proven with the real
 * worker, queue, effect store and outbox relay: each follow-up reaches Valkey exactly once
 * however the job's delivery dies, none when its attempt rolls back; the result is the committed
 * attempt's. The relay polls only once a minute here, so a follow-up that arrives in seconds was
 * sent because the commit woke the relay.
 */
@WithRealServices
class FollowUpProofTest {

    private static final Duration SHORT_LEASE = Duration.ofMillis(300);
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final Duration RARE_POLL = Duration.ofMinutes(1);
    private static final List<String> STEPS = List.of("render-invoice", "tell-warehouse", "email-receipt");

    private final ValkeyService valkey;
    private final PostgresService postgres;
    private Engine engine;
    private String followUps;
    private final AtomicInteger handlerRuns = new AtomicInteger();

    FollowUpProofTest(ValkeyService valkey, PostgresService postgres) {
        this.valkey = valkey;
        this.postgres = postgres;
    }

    private void start(JobHandler handler, WorkerSettings settings, FaultInjector faults) {
        engine = Engine.withOutbox(valkey, postgres, RARE_POLL);
        followUps = engine.queueName + "-next";
        engine.startMaintenance(Duration.ofMillis(50));
        engine.startWorker("w1", handler, settings, faults);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (engine != null) {
            engine.close();
        }
    }

    private static WorkerSettings shortLeases() {
        return WorkerSettings.DEFAULT.withConcurrency(1).withLease(SHORT_LEASE).withIdlePoll(Duration.ofMillis(20))
                .withBackoff(Backoff.NONE);
    }

    /** Three follow-ups, each payload naming its step and the order; the result names the attempt that ran. */
    private JobHandler threeFollowUps() {
        return job -> {
            handlerRuns.incrementAndGet();
            for (String step : STEPS) {
                job.followUp(step, followUps, "{\"step\":\"" + step + "\",\"order\":" + job.payload() + "}");
            }
            job.result(Json.createObjectBuilder().add("attempt", job.attempt()).build());
        };
    }

    private JobView awaitState(String queue, String id, JobState state) {
        await("job " + id + " " + state.wireName()).atMost(PATIENCE).until(
                () -> engine.queue.reads().job(queue, id).map(j -> j.state() == state).orElse(false));
        return engine.queue.reads().job(queue, id).orElseThrow();
    }

    /** Every job the follow-up queue holds, after the outbox is drained: a sweep now sends whatever a sweep could ever send. */
    private List<JobView> followUpJobs() {
        engine.relay.sweep();
        assertThat(outboxRows()).as("outbox rows left after a sweep").isZero();
        return engine.queue.reads().jobs(followUps, JobState.PENDING, Optional.empty(), 500).jobs();
    }

    private long outboxRows() {
        return engine.jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.outbox").mapTo(Long.class).one());
    }

    private void awaitFollowUps(int count) {
        await(count + " follow-ups in Valkey").atMost(PATIENCE)
                .until(() -> engine.queue.reads().stats(followUps).total() >= count);
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void aJobWhoseDeliveryDiesMakesEachOfItsThreeFollowUpsOnce(CrashPoint point) {
        List<CrashPoint> crashes = new CopyOnWriteArrayList<>();
        start(threeFollowUps(), shortLeases(), SimulatedCrash.at(point, 1).witnessedBy(crashes::add));
        Enqueued order = engine.queue.submissions().enqueue(engine.queueName, NewJob.of("7"));

        JobView done = awaitState(engine.queueName, order.id(), JobState.COMPLETED);
        awaitFollowUps(STEPS.size());

        assertThat(crashes).containsExactly(point);
        assertThat(done.attempts()).as("deliveries: the acknowledgement landed before a crash at DONE, not before the others")
                .isEqualTo(point == CrashPoint.DONE ? 1 : 2);
        assertThat(handlerRuns).as("handler runs").hasValue(1);
        List<JobView> made = followUpJobs();
        String jobKey = engine.queueName + ":" + order.id() + ":" + done.createdAt().toEpochMilli();
        assertThat(made).as("follow-up jobs").extracting(j -> j.idempotencyKey().orElseThrow())
                .containsExactlyInAnyOrderElementsOf(STEPS.stream().map(step -> "followup:" + jobKey + ":" + step).toList());
        assertThat(made).extracting(JobView::payload)
                .containsExactlyInAnyOrderElementsOf(STEPS.stream().map(s -> "{\"step\":\"" + s + "\",\"order\":7}").toList());
        long applyingAttempt = point == CrashPoint.LEASE ? 2 : 1;
        assertThat(engine.effects.result(done.identity())).as("the result of the attempt whose effect committed")
                .contains(Json.createObjectBuilder().add("attempt", applyingAttempt).build());
    }

    @Test
    void anAttemptThatRollsBackMakesNoFollowUpsAndLeavesNoResult() {
        AtomicInteger attempts = new AtomicInteger();
        JobHandler failsFirst = job -> {
            threeFollowUps().handle(job);
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("the first attempt fails after writing its follow-ups");
            }
        };
        start(failsFirst, shortLeases(), FaultInjector.NONE);
        Enqueued order = engine.queue.submissions().enqueue(engine.queueName, NewJob.of("8"));

        JobView done = awaitState(engine.queueName, order.id(), JobState.COMPLETED);
        awaitFollowUps(STEPS.size());

        assertThat(done.attempts()).isEqualTo(2);
        assertThat(handlerRuns).as("handler runs").hasValue(2);
        assertThat(followUpJobs()).as("only the committed attempt's follow-ups").hasSize(STEPS.size());
        assertThat(engine.effects.result(done.identity())).contains(Json.createObjectBuilder().add("attempt", 2).build());
    }

    @Test
    void aJobThatNeverCommitsMakesNoFollowUpsAndHasNoResult() {
        start(job -> {
            threeFollowUps().handle(job);
            throw new PermanentJobFailure("refused after writing its follow-ups");
        }, shortLeases(), FaultInjector.NONE);
        Enqueued order = engine.queue.submissions().enqueue(engine.queueName, NewJob.of("9"));

        JobView dead = awaitState(engine.queueName, order.id(), JobState.DEAD);

        assertThat(followUpJobs()).isEmpty();
        assertThat(engine.effects.result(dead.identity())).isEmpty();
    }

    @Test
    void aJobWithoutResultOrFollowUpsHasNeither() {
        start(job -> handlerRuns.incrementAndGet(), shortLeases(), FaultInjector.NONE);
        Enqueued plain = engine.queue.submissions().enqueue(engine.queueName, NewJob.of("{}"));

        JobView done = awaitState(engine.queueName, plain.id(), JobState.COMPLETED);

        assertThat(engine.effects.find(done.identity())).as("its effect row").isPresent();
        assertThat(engine.effects.result(done.identity())).isEmpty();
        assertThat(followUpJobs()).isEmpty();
    }

    /**
     * The batched path: contexts share one transaction, each job's follow-ups are its own, and a
     * poison job that sends the batch back to one transaction per job leaves none of the failed
     * batch's rows behind.
     */
    @Test
    void aBatchWithAPoisonJobMakesEachGoodJobsFollowUpsOnce() {
        Map<String, Integer> runsPerJob = new ConcurrentHashMap<>();
        BatchJobHandler batch = jobs -> {
            for (JobContext job : jobs) {
                runsPerJob.merge(job.jobId(), 1, Integer::sum);
                job.followUp("a", followUps, "{\"of\":" + job.payload() + "}");
                job.followUp("b", JobRequest.of(followUps, "{\"of\":" + job.payload() + "}").withPriority(JobRequest.HIGHEST_PRIORITY));
                job.result(Json.createValue(job.payload()));
                if (job.payload().equals("\"poison\"")) {
                    throw new PermanentJobFailure("poison");
                }
            }
        };
        engine = Engine.withOutbox(valkey, postgres, RARE_POLL);
        followUps = engine.queueName + "-next";
        List<String> payloads = new ArrayList<>(IntStream.range(0, 9).mapToObj(i -> "\"job-" + i + "\"").toList());
        payloads.add(4, "\"poison\"");
        List<Enqueued> jobs = engine.queue.submissions().enqueueBatch(engine.queueName, payloads.stream().map(NewJob::of).toList());
        engine.startWorker("w1", batch, shortLeases().withConcurrency(1).withBatchSize(10), FaultInjector.NONE);

        for (Enqueued job : jobs) {
            await().atMost(PATIENCE).until(() -> engine.queue.reads().job(engine.queueName, job.id())
                    .map(j -> j.state() == JobState.COMPLETED || j.state() == JobState.DEAD).orElse(false));
        }
        awaitFollowUps(2 * 9);

        List<JobView> made = followUpJobs();
        assertThat(made).as("two follow-ups of each good job, none of the poison job's").hasSize(2 * 9)
                .extracting(JobView::idempotencyKey).doesNotHaveDuplicates();
        assertThat(made).extracting(JobView::payload).doesNotContain("{\"of\":\"poison\"}");
        assertThat(runsPerJob.values()).as("the batch ran, then each job alone").allMatch(runs -> runs >= 1);
        JobView good = engine.queue.reads().job(engine.queueName, jobs.get(0).id()).orElseThrow();
        assertThat(engine.effects.result(good.identity())).contains(Json.createValue("\"job-0\""));
    }

    /** A handler's mistakes are refused where it makes them, naming the field; the job still commits what it did right. */
    @Test
    void badStepsAndResultsAreRefusedNamingTheField() {
        List<String> refusals = new CopyOnWriteArrayList<>();
        start(job -> {
            refused(refusals, () -> job.followUp("", followUps, "{}"));
            refused(refusals, () -> job.followUp("x".repeat(101), followUps, "{}"));
            refused(refusals, () -> job.followUp("line\nbreak", followUps, "{}"));
            job.followUp("once", followUps, "{}");
            refused(refusals, () -> job.followUp("once", followUps, "{}"));
            refused(refusals, () -> job.followUp("keyed", JobRequest.of(followUps, "{}").withIdempotencyKey("mine")));
            refused(refusals, () -> job.followUp("bad-lane", JobRequest.of(followUps, "{}").withLane("no spaces")));
            refused(refusals, () -> job.result(null));
            refused(refusals, () -> job.result(Json.createValue("x".repeat(64 * 1024))));
            job.result(JsonValue.TRUE);
        }, shortLeases(), FaultInjector.NONE);
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of("{}"));

        JobView done = awaitState(engine.queueName, job.id(), JobState.COMPLETED);
        awaitFollowUps(1);

        assertThat(refusals).hasSize(8);
        assertThat(refusals.subList(0, 4)).allMatch(m -> m.startsWith("step: "), "starts with 'step: '");
        assertThat(refusals.get(3)).contains("'once'");
        assertThat(refusals.get(4)).startsWith("idempotencyKey: ");
        assertThat(refusals.get(5)).startsWith("lane: ");
        assertThat(refusals.subList(6, 8)).allMatch(m -> m.startsWith("result: "), "starts with 'result: '");
        assertThat(followUpJobs()).as("the one good follow-up").hasSize(1);
        assertThat(engine.effects.result(done.identity())).contains(JsonValue.TRUE);
    }

    private static void refused(List<String> messages, Runnable call) {
        try {
            call.run();
            messages.add("not refused");
        } catch (IllegalArgumentException e) {
            messages.add(e.getMessage());
        }
    }
}
