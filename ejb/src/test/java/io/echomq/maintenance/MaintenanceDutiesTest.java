package io.echomq.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.Charge;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.Retention;
import io.echomq.queue.ServerClock;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.worker.Engine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each maintenance duty does its work on every queue, whatever another queue or duty does. */
@WithRealServices
class MaintenanceDutiesTest {

    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":100}";
    private static final Duration SHORT_LEASE = Duration.ofMillis(100);

    private Engine engine;

    @BeforeEach
    void engine(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
    }

    @AfterEach
    void stop() throws InterruptedException {
        engine.close();
    }

    private static Maintenance.Settings reconcilingInPagesOf(int batch) {
        Maintenance.Settings d = Maintenance.Settings.DEFAULT;
        return new Maintenance.Settings(d.interval(), d.reapBatch(), Retention.DEFAULT, d.trimEvery(), d.effectRewalkEvery(), batch,
                d.effectRetention());
    }

    /** Leases every job on a short lease; {@link #reapAll} then dead-letters them in one call, at one score. */
    private List<ClaimedJob> deadTogether(List<Enqueued> jobs) {
        List<ClaimedJob> claimed = engine.queue.leases().claim(engine.queueName, SHORT_LEASE, jobs.size(), "gone");
        assertThat(claimed).hasSize(jobs.size());
        return claimed;
    }

    private void reapAll(List<ClaimedJob> leased) {
        leased.forEach(job -> serverClock().awaitPast(job.leaseUntil()));
        assertThat(engine.queue.admin().reap(engine.queueName, 100).toDead()).isEqualTo(leased.size());
    }

    private ServerClock serverClock() {
        return ServerClock.of(engine.redis, engine.queueName);
    }

    private void applyEffect(ClaimedJob job) {
        engine.effects.apply(job.lease(), tx -> LedgerChargeHandler.charge(tx, job.lease().queue(), job.id(), job.attempt(),
                new Charge("acct-1", 100)));
    }

    private JobState state(String id) {
        return engine.queue.reads().job(engine.queueName, id).map(JobView::state).orElseThrow();
    }

    @Test
    void aQueueWhoseRunFailsNeverKeepsTheOtherQueuesFromBeingReaped() throws Exception {
        String broken = engine.queueName + "-broken";
        // A key of the wrong type makes every script on that queue fail, as a corrupted queue would.
        engine.redis.set("echomq:{" + broken + "}:active", "not a sorted set");
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
        ClaimedJob gone = engine.queue.leases().claim(engine.queueName, SHORT_LEASE, 1, "gone").get(0);
        serverClock().awaitPast(gone.leaseUntil());
        List<String> failures = new CopyOnWriteArrayList<>();
        Maintenance maintenance = new Maintenance(engine.queue, engine.effects, List.of(broken, engine.queueName),
                Maintenance.Settings.DEFAULT, "duties-test", new MaintenanceListener() {
                    @Override
                    public void failed(String duty, String queue, RuntimeException error) {
                        failures.add(duty + "@" + queue);
                    }
                });

        Pass pass = maintenance.runOnce();

        assertThat(pass.reapedToPending()).isEqualTo(1);
        assertThat(state(job.id())).isEqualTo(JobState.PENDING);
        assertThat(failures).contains("reaper@" + broken).noneMatch(f -> f.endsWith("@" + engine.queueName));
    }

    @Test
    void jobsDeadLetteredTogetherAreAllReconciledThoughTheyStraddleAPage() throws Exception {
        List<NewJob> four = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            four.add(NewJob.of(CHARGE).withMaxAttempts(1));
        }
        List<Enqueued> jobs = engine.queue.submissions().enqueueBatch(engine.queueName, four);
        List<ClaimedJob> claimed = deadTogether(jobs);
        // The first page (ids 1 and 2) holds nothing to reconcile; the effects of 3 and 4 committed.
        applyEffect(claimed.get(2));
        applyEffect(claimed.get(3));
        reapAll(claimed);
        Maintenance maintenance = engine.assembly.maintenance(List.of(engine.queueName), reconcilingInPagesOf(2));

        int reconciled = 0;
        for (int pass = 0; pass < 4; pass++) {
            reconciled += maintenance.runOnce().reconciled();
        }

        assertThat(reconciled).isEqualTo(2);
        assertThat(state(jobs.get(2).id())).isEqualTo(JobState.COMPLETED);
        assertThat(state(jobs.get(3).id())).isEqualTo(JobState.COMPLETED);
        assertThat(state(jobs.get(0).id())).isEqualTo(JobState.DEAD);
    }

    @Test
    void aJobSkippedForAnotherJobsIdempotencyKeyThatEndsDeadIsCompleted() throws Exception {
        Enqueued first = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withIdempotencyKey("order-7"));
        ClaimedJob firstRun = engine.queue.leases().claim(engine.queueName, Duration.ofSeconds(30), 1, "w").get(0);
        applyEffect(firstRun);
        engine.queue.leases().complete(firstRun.lease());
        // Valkey forgets the first job and its key (trimmed by retention, or lost in a failover).
        assertThat(engine.queue.admin().remove(engine.queueName, first.id())).isInstanceOf(io.echomq.queue.ManualTransition.Removed.class);
        Enqueued again = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE).withIdempotencyKey("order-7").withMaxAttempts(1));
        assertThat(again.id()).isNotEqualTo(first.id());
        reapAll(deadTogether(List.of(again)));
        assertThat(state(again.id())).isEqualTo(JobState.DEAD);

        Pass pass = engine.maintenanceNotStarted().runOnce();

        assertThat(pass.reconciled()).isEqualTo(1);
        JobView done = engine.queue.reads().job(engine.queueName, again.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        assertThat(done.note()).hasValueSatisfying(n -> assertThat(n).contains("same idempotency key"));
        assertThat(engine.ledger().entries()).isEqualTo(1);
    }

    @Test
    void oldEffectRowsGoWithinSecondsOfPassingTheirAgeNotATrimPeriodLater() throws Exception {
        insertOldRowsOfJobsValkeyNoLongerHolds(2_500);
        Maintenance.Settings settings = Maintenance.Settings.DEFAULT.withEffectRetention(Duration.ofMinutes(1));
        assertThat(settings.effectRewalkEvery()).isEqualTo(Duration.ofSeconds(30));

        engine.assembly.startMaintenance(List.of(engine.queueName), settings);

        await("every old effect row deleted").atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(effectRows()).as("rows left, with maintenance running every %s", settings.interval()).isZero());
    }

    @Test
    void aRowKeptWhileItsJobWasHeldGoesOnceTheWalkStartsOverAfterTheJobCompleted() throws Exception {
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of(CHARGE));
        ClaimedJob claimed = engine.queue.leases().claim(engine.queueName, Duration.ofSeconds(30), 1, "w").get(0);
        applyEffect(claimed);
        insertOldRowsOfJobsValkeyNoLongerHolds(5);
        engine.jdbi.useHandle(h -> h.createUpdate("UPDATE echomq.effect SET applied_at = now() - interval '2 hours' "
                + "WHERE queue = :q AND job_id = :id").bind("q", engine.queueName).bind("id", Long.parseLong(job.id())).execute());
        Duration rewalkEvery = Duration.ofMillis(200);
        EffectRetention retention = new EffectRetention(new GoneForGood(engine.queue.reads()::statesOf, engine.effects), engine.effects, Duration.ofSeconds(30), rewalkEvery,
                Duration.ofMinutes(1), 2);
        assertThat(retention.runOnce(engine.queueName).effectRowsDeleted()).isEqualTo(5);
        assertThat(hasEffectRow(job.id())).as("the active job's row").isTrue();

        engine.queue.leases().complete(claimed.lease());
        Thread.sleep(rewalkEvery.toMillis() * 2);

        assertThat(retention.runOnce(engine.queueName).effectRowsDeleted()).isEqualTo(1);
        assertThat(effectRows()).isZero();
    }

    @Test
    void aFlowChildsEffectRowStaysWhileItsParentIsUnfinishedAndGoesOnceTheParentIsGone() {
        String elsewhere = engine.queueName + "-unserved";
        FlowSubmitted parent = engine.queue.flows().submit(NewFlow.of(engine.queueName, NewJob.of("\"summary\""),
                NewFlow.of(engine.queueName, NewJob.of(CHARGE)), NewFlow.of(elsewhere, NewJob.of("\"never claimed\""))));
        ClaimedJob child = engine.queue.leases().claim(engine.queueName, Duration.ofSeconds(30), 1, "w").get(0);
        applyEffect(child);
        engine.queue.leases().complete(child.lease());
        engine.jdbi.useHandle(h -> h.createUpdate("UPDATE echomq.effect SET applied_at = now() - interval '2 hours' WHERE queue = :q")
                .bind("q", engine.queueName).execute());
        EffectRetention retention = new EffectRetention(new GoneForGood(engine.queue.reads()::statesOf, engine.effects), engine.effects, Duration.ofSeconds(30), Duration.ZERO,
                Duration.ofMinutes(1), 100);

        assertThat(retention.runOnce(engine.queueName).effectRowsDeleted()).as("rows deleted while the parent waits").isZero();
        assertThat(hasEffectRow(child.id())).as("the completed child's row: its parent reads its result").isTrue();

        assertThat(engine.queue.admin().cancel(engine.queueName, parent.id())).isInstanceOf(ManualTransition.Moved.class);
        assertThat(retention.runOnce(engine.queueName).effectRowsDeleted()).as("rows deleted while the parent may be requeued").isZero();
        assertThat(engine.queue.admin().remove(engine.queueName, parent.id())).isInstanceOf(ManualTransition.Removed.class);

        assertThat(retention.runOnce(engine.queueName).effectRowsDeleted()).as("rows deleted once the parent is gone").isEqualTo(1);
        assertThat(hasEffectRow(child.id())).isFalse();
    }

    /** Rows an hour old, of job ids 1 to {@code count} with creation times no job of the queue has. */
    private void insertOldRowsOfJobsValkeyNoLongerHolds(int count) {
        engine.jdbi.useHandle(h -> h.createUpdate("INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt, applied_at) "
                + "SELECT :q, 1000000 + g, 1000 + g, 1, now() - interval '1 hour' FROM generate_series(1, :n) g")
                .bind("q", engine.queueName).bind("n", count).execute());
    }

    /** Returns once every effect row of the queue is older than {@code age} on PostgreSQL's clock, the one retention reads. */
    private void awaitEffectRowsOlderThan(Duration age) {
        await("the effect rows older than " + age.toMillis() + " ms on PostgreSQL's clock").atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
                .until(() -> engine.jdbi.withHandle(h -> h.createQuery("SELECT max(applied_at) <= now() - make_interval(secs => :ageMs / 1000.0) "
                        + "FROM echomq.effect WHERE queue = :q").bind("q", engine.queueName).bind("ageMs", age.toMillis())
                        .mapTo(Boolean.class).one()));
    }

    private int effectRows() {
        return engine.jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.effect WHERE queue = :q")
                .bind("q", engine.queueName).mapTo(Integer.class).one());
    }

    private boolean hasEffectRow(String jobId) {
        return engine.jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.effect WHERE queue = :q AND job_id = :id")
                .bind("q", engine.queueName).bind("id", Long.parseLong(jobId)).mapTo(Integer.class).one()) == 1;
    }

    /** Four jobs whose effects committed: 0 completed, 1 forgotten by Valkey, 2 dead and 3 pending again (acknowledgements lost). */
    private List<Enqueued> fourAppliedJobs() throws Exception {
        List<NewJob> four = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            four.add(NewJob.of(CHARGE).withMaxAttempts(i == 2 ? 1 : 5));
        }
        List<Enqueued> jobs = engine.queue.submissions().enqueueBatch(engine.queueName, four);
        List<ClaimedJob> claimed = engine.queue.leases().claim(engine.queueName, SHORT_LEASE, 4, "w");
        claimed.forEach(this::applyEffect);
        engine.queue.leases().complete(claimed.get(0).lease());
        engine.queue.leases().complete(claimed.get(1).lease());
        engine.queue.admin().remove(engine.queueName, jobs.get(1).id());
        claimed.subList(2, 4).forEach(job -> serverClock().awaitPast(job.leaseUntil()));
        assertThat(engine.queue.admin().reap(engine.queueName, 100).jobIds()).containsExactlyInAnyOrder(jobs.get(2).id(), jobs.get(3).id());
        assertThat(state(jobs.get(2).id())).isEqualTo(JobState.DEAD);
        assertThat(state(jobs.get(3).id())).isEqualTo(JobState.PENDING);
        return jobs;
    }

    @Test
    void oldEffectRowsOfFinishedJobsGoWhileUnfinishedJobsKeepTheirs() throws Exception {
        List<Enqueued> jobs = fourAppliedJobs();
        awaitEffectRowsOlderThan(Duration.ofMillis(10));
        // The duty alone: in a whole pass the reconciler would first complete the dead job.
        EffectRetention retention = new EffectRetention(new GoneForGood(engine.queue.reads()::statesOf, engine.effects), engine.effects, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMillis(10), 100);

        int deleted = retention.runOnce(engine.queueName).effectRowsDeleted();

        assertThat(deleted).isEqualTo(2);
        assertThat(hasEffectRow(jobs.get(0).id())).as("completed job's row").isFalse();
        assertThat(hasEffectRow(jobs.get(1).id())).as("forgotten job's row").isFalse();
        assertThat(hasEffectRow(jobs.get(2).id())).as("dead job's row: the reconciler still needs it").isTrue();
        assertThat(hasEffectRow(jobs.get(3).id())).as("pending job's row: its next attempt still needs it").isTrue();
    }

    @Test
    void effectRowsYoungerThanTheRetentionAgeStay() throws Exception {
        fourAppliedJobs();
        Maintenance maintenance = engine.assembly.maintenance(List.of(engine.queueName), Maintenance.Settings.DEFAULT);

        assertThat(maintenance.runOnce().effectRowsDeleted()).isZero();
        assertThat(effectRows()).isEqualTo(4);
    }

    @Test
    void retentionStepsOverKeptRowsToReachFinishedOnesBehindThem() throws Exception {
        fourAppliedJobs();
        // Oldest first: jobs 4 and 3 (kept), then 2 and 1 (finished); a batch of two must step over the kept ones.
        engine.jdbi.useHandle(h -> h.createUpdate("UPDATE echomq.effect SET applied_at = now() - interval '1 hour' * job_id "
                + "WHERE queue = :q").bind("q", engine.queueName).execute());
        EffectRetention retention = new EffectRetention(new GoneForGood(engine.queue.reads()::statesOf, engine.effects), engine.effects, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMinutes(1), 2);

        Pass first = retention.runOnce(engine.queueName);

        assertThat(first.effectRowsDeleted()).isEqualTo(2);
        assertThat(effectRows()).isEqualTo(2);
    }

    @Test
    void oneRunDeletesABacklogOfOldRowsWhateverItsSize() {
        // 25 batches of rows of jobs Valkey does not hold: more than a run capped at 10 batches would delete.
        engine.jdbi.useHandle(h -> h.createUpdate("INSERT INTO echomq.effect (queue, job_id, job_created_ms, attempt, applied_at) "
                + "SELECT :q, g, 1000 + g, 1, now() - interval '1 hour' FROM generate_series(1, 2500) g").bind("q", engine.queueName).execute());
        EffectRetention retention = new EffectRetention(new GoneForGood(engine.queue.reads()::statesOf, engine.effects), engine.effects, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMinutes(1), 100);

        assertThat(retention.runOnce(engine.queueName).effectRowsDeleted()).isEqualTo(2_500);
        assertThat(effectRows()).isZero();
    }
}
