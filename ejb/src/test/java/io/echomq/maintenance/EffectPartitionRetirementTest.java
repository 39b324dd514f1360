package io.echomq.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.demo.Charge;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.EffectPartitions;
import io.echomq.effect.EffectRows;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.ServerClock;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.worker.Engine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The effect rows of a time partition go with it, except those of jobs Valkey still holds unfinished. */
@WithRealServices
class EffectPartitionRetirementTest {

    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":100}";
    private static final Duration SHORT_LEASE = Duration.ofMillis(100);

    private Engine engine;
    private EffectPartitions partitions;

    @BeforeEach
    void engine(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
        partitions = engine.effects.partitions();
    }

    @AfterEach
    void stop() throws InterruptedException {
        engine.close();
    }

    private EffectPartitionRetirement retirement(Duration age) {
        return new EffectPartitionRetirement(partitions, new GoneForGood(engine.queue.reads()::statesOf, engine.effects), engine.queueName,
                Duration.ofSeconds(30), age, 100);
    }

    private JobState state(String id) {
        return engine.queue.reads().job(engine.queueName, id).map(JobView::state).orElseThrow();
    }

    private String partitionOf(String jobId) {
        return EffectRows.partitionOf(engine.jdbi, engine.queueName, jobId).orElse("none");
    }

    /**
     * Four jobs whose effects committed into one time partition, which ends just after the newest
     * of them: 0 completed, 1 forgotten by Valkey, 2 dead and 3 pending again (acknowledgements lost).
     */
    private List<Enqueued> fourAppliedJobsInOnePartition() {
        List<NewJob> four = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            four.add(NewJob.of(CHARGE).withMaxAttempts(i == 2 ? 1 : 5));
        }
        List<Enqueued> jobs = engine.queue.submissions().enqueueBatch(engine.queueName, four);
        List<ClaimedJob> claimed = engine.queue.leases().claim(engine.queueName, SHORT_LEASE, 4, "w");
        long first = claimed.stream().mapToLong(c -> c.lease().jobCreatedMs()).min().orElseThrow();
        long last = claimed.stream().mapToLong(c -> c.lease().jobCreatedMs()).max().orElseThrow();
        partitions.makeAhead(first, last + 1, Duration.ofMillis(last + 1 - first));
        claimed.forEach(job -> engine.effects.apply(job.lease(), tx -> LedgerChargeHandler.charge(tx, job.lease().queue(), job.id(),
                job.attempt(), new Charge("acct-1", 100))));
        engine.queue.leases().complete(claimed.get(0).lease());
        engine.queue.leases().complete(claimed.get(1).lease());
        engine.queue.admin().remove(engine.queueName, jobs.get(1).id());
        ServerClock clock = ServerClock.of(engine.redis, engine.queueName);
        claimed.subList(2, 4).forEach(job -> clock.awaitPast(job.leaseUntil()));
        engine.queue.admin().reap(engine.queueName, 100);
        assertThat(state(jobs.get(2).id())).isEqualTo(JobState.DEAD);
        assertThat(state(jobs.get(3).id())).isEqualTo(JobState.PENDING);
        jobs.forEach(job -> assertThat(partitionOf(job.id())).startsWith("echomq.effect_p"));
        return jobs;
    }

    @Test
    void aPartitionPastTheAgeGoesWholeAndTheRowsOfJobsValkeyStillHoldsMoveToTheDefaultPartition() {
        List<Enqueued> jobs = fourAppliedJobsInOnePartition();
        String partition = partitionOf(jobs.get(0).id());

        Pass pass = retirement(Duration.ofMillis(1)).runOnce(engine.queueName);

        assertThat(pass.effectRowsDeleted()).isEqualTo(2);
        assertThat(partitionOf(jobs.get(0).id())).as("completed job's row").isEqualTo("none");
        assertThat(partitionOf(jobs.get(1).id())).as("forgotten job's row").isEqualTo("none");
        assertThat(partitionOf(jobs.get(2).id())).as("dead job's row: the reconciler still needs it").isEqualTo("echomq.effect_default");
        assertThat(partitionOf(jobs.get(3).id())).as("pending job's row: its next attempt still needs it").isEqualTo("echomq.effect_default");
        assertThat(partitions.ranges()).extracting(r -> "echomq." + r.name()).doesNotContain(partition);
    }

    @Test
    void aPartitionYoungerThanTheAgeStays() {
        List<Enqueued> jobs = fourAppliedJobsInOnePartition();

        assertThat(retirement(Duration.ofHours(1)).runOnce(engine.queueName).effectRowsDeleted()).isZero();

        jobs.forEach(job -> assertThat(partitionOf(job.id())).startsWith("echomq.effect_p"));
    }

    @Test
    void partitionsAreMadeAheadSoNewJobsRowsLandInThemNotInTheDefaultPartition() {
        EffectPartitionRetirement duty = retirement(Duration.ofSeconds(8));
        duty.runOnce(engine.queueName);
        long now = partitions.nowMs();

        assertThat(partitions.ranges()).as("partitions of a second each, from a second ahead to three")
                .anySatisfy(r -> assertThat(r.fromMs()).isBetween(now, now + 1_500))
                .allSatisfy(r -> assertThat(r.toMs() - r.fromMs()).isIn(1_000L, 1L))
                .anySatisfy(r -> assertThat(r.toMs()).isGreaterThanOrEqualTo(now + 2_000));
        assertThat(duty.runOnce("another-queue")).as("partitions are the first queue's duty alone").isEqualTo(Pass.NOTHING);
    }
}
