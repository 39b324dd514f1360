package io.echomq.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.handler.JobHandler;
import io.echomq.maintenance.DutyTimedOutException;
import io.echomq.maintenance.Maintenance;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.maintenance.Pass;
import io.echomq.queue.JobEvent;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.worker.Engine;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lease upkeep never waits behind database work: with the application's pool exhausted and
 * maintenance waiting on it, a job that outlives its lease is still kept alive; and a duty stuck
 * on the database is given up after the maintenance timeout, reported by name, and runs again.
 */
@WithRealServices
class LeaseUpkeepTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    /** Longer than the lease: only heartbeats keep the job from being reaped. */
    private static final Duration JOB = Duration.ofSeconds(3);
    private static final Duration OFTEN = Duration.ofMillis(100);
    private static final Duration MAINTENANCE_TIMEOUT = Duration.ofMillis(500);
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    /** Server B: the healthy database, its own maintenance (a reaper that would reap a lapsed lease). */
    private Engine engine;
    /** Server A: its effect store behind a pool that can be exhausted. */
    private ExhaustedPool pool;
    private EngineThreads threads;
    private EngineAssembly serverA;
    private final Duties duties = new Duties();

    @BeforeEach
    void servers(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
        pool = new ExhaustedPool(engine.pool());
        threads = EngineThreads.from(EngineThreads.daemonThreads("server-a"));
        serverA = new EngineAssembly(engine.queue, new EffectStore(Jdbi.create(pool), EffectSettings.DEFAULT), threads, "server-a",
                WorkerListener.NONE, duties);
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.refill();
        serverA.stop(Duration.ofSeconds(5));
        threads.close();
        engine.close();
    }

    private Maintenance.Settings quickMaintenance() {
        return Maintenance.Settings.DEFAULT.withInterval(OFTEN).withTimeout(MAINTENANCE_TIMEOUT);
    }

    @Test
    void aJobOutlivingItsLeaseIsNeitherReapedNorRedeliveredWhileMaintenanceWaitsForTheDatabase() throws Exception {
        String queue = engine.queueName;
        // A delayed job, so the reconciler reads the effect store on every run, beside the effect retention.
        engine.queue.submissions().enqueue(queue, NewJob.of("{}").delayedBy(Duration.ofHours(1)));
        String job = engine.queue.submissions().enqueue(queue, NewJob.of("{}")).id();
        CountDownLatch running = new CountDownLatch(1);
        AtomicInteger handled = new AtomicInteger();
        JobHandler longerThanItsLease = context -> {
            handled.incrementAndGet();
            running.countDown();
            Thread.sleep(JOB.toMillis());
        };
        serverA.startWorker(queue, longerThanItsLease, WorkerSettings.DEFAULT.withConcurrency(1).withLease(LEASE)
                .withIdlePoll(Duration.ofMillis(20)));
        assertThat(running.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the job started").isTrue();

        pool.exhaust();
        serverA.startMaintenance(List.of(queue), quickMaintenance());
        // Server A must hold the queue's maintenance lease, or its duties never reach the pool: both
        // servers take the lease on a timer thread at once, and under load server B's came first.
        await("server A's maintenance waiting for a connection").atMost(PATIENCE).until(() -> pool.mostWaiting() >= 1);
        engine.startMaintenance(OFTEN);
        await("job " + job + " completed, or reaped").atMost(PATIENCE)
                .until(() -> state(job) == JobState.COMPLETED || events(job).contains("reaped"));
        int stuckOnThePool = pool.mostWaiting();
        pool.refill();

        // The effect partitions' duty waits too when its run reaches the pool before the job ends.
        assertThat(stuckOnThePool).as("duties waiting for a connection: the reconciler, the effect retention, maybe the partitions'")
                .isBetween(2, 3);
        assertThat(events(job)).as("the job's history").doesNotContain("reaped");
        await("job " + job + " completed").atMost(PATIENCE).until(() -> state(job) == JobState.COMPLETED);
        JobView done = engine.queue.reads().job(queue, job).orElseThrow();
        assertThat(done.attempts()).as("deliveries").isEqualTo(1);
        assertThat(handled).as("handler runs").hasValue(1);
    }

    @Test
    void aDutyWaitingForAConnectionIsGivenUpReportedByNameAndRunsAgainOnceOneIsFree() {
        String queue = engine.queueName;
        pool.exhaust();
        serverA.startMaintenance(List.of(queue), quickMaintenance());

        await("the effect retention timed out").atMost(PATIENCE).until(() -> duties.timeouts("effect-retention") >= 1);
        DutyTimedOutException reported = duties.firstTimeout("effect-retention");
        assertThat(reported.getMessage()).contains("the effect-retention on queue '" + queue + "'", "500 ms");
        await("the reaper ran while the effect retention waited").atMost(PATIENCE).until(() -> duties.runs("reaper") >= 3);

        pool.refill();
        int before = duties.runs("effect-retention");
        await("the effect retention ran again").atMost(PATIENCE).until(() -> duties.runs("effect-retention") > before);
    }

    @Test
    void aDutyStatementWaitingOnALockIsCancelledByItsQueryTimeout() {
        String queue = engine.queueName;
        try (Handle holder = engine.jdbi.open()) {
            holder.begin();
            holder.execute("LOCK TABLE echomq.effect IN ACCESS EXCLUSIVE MODE");
            serverA.startMaintenance(List.of(queue), quickMaintenance());

            // A run interrupted but still waiting on the lock would hold the duty: only skipped runs would follow. The
            // statement's query timeout (the maintenance timeout in whole seconds) cancels it, so a later run starts anew
            // and times out on the lock again.
            await("the effect retention timed out twice on the lock").atMost(PATIENCE)
                    .until(() -> duties.timeouts("effect-retention") >= 2);
            holder.rollback();
        }
        int before = duties.runs("effect-retention");
        await("the effect retention ran again once the lock was released").atMost(PATIENCE)
                .until(() -> duties.runs("effect-retention") > before);
    }

    private JobState state(String job) {
        return engine.queue.reads().job(engine.queueName, job).map(JobView::state).orElse(null);
    }

    private List<String> events(String job) {
        return engine.queue.reads().history(engine.queueName, job).stream().map(JobEvent::event).toList();
    }

    /** What server A's maintenance reported. */
    private static final class Duties implements MaintenanceListener {

        private final List<String> ran = new CopyOnWriteArrayList<>();
        private final List<DutyTimedOutException> timedOut = new CopyOnWriteArrayList<>();

        @Override
        public void ran(String duty, String queue, Pass pass, Duration took) {
            ran.add(duty);
        }

        @Override
        public void failed(String duty, String queue, RuntimeException error) {
            if (error instanceof DutyTimedOutException timeout && !timeout.skipped()) {
                timedOut.add(timeout);
            }
        }

        int runs(String duty) {
            return (int) ran.stream().filter(duty::equals).count();
        }

        int timeouts(String duty) {
            return (int) timedOut.stream().filter(e -> e.duty().equals(duty)).count();
        }

        DutyTimedOutException firstTimeout(String duty) {
            return timedOut.stream().filter(e -> e.duty().equals(duty)).findFirst().orElseThrow();
        }
    }
}
