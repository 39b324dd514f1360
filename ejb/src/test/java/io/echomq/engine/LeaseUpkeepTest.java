package io.echomq.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.handler.JobHandler;
import io.echomq.maintenance.Maintenance;
import io.echomq.maintenance.MaintenanceListener;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lease upkeep never waits behind database work: with the application's pool exhausted and
 * maintenance waiting on it, a job that outlives its lease is still kept alive.
 */
@WithRealServices
class LeaseUpkeepTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    /** Longer than the lease: only heartbeats keep the job from being reaped. */
    private static final Duration JOB = Duration.ofSeconds(3);
    private static final Duration OFTEN = Duration.ofMillis(100);
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    /** Server B: the healthy database, its own maintenance (a reaper that would reap a lapsed lease). */
    private Engine engine;
    /** Server A: its effect store behind a pool that can be exhausted. */
    private ExhaustedPool pool;
    private EngineThreads threads;
    private EngineAssembly serverA;

    @BeforeEach
    void servers(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
        pool = new ExhaustedPool(engine.pool());
        threads = EngineThreads.from(EngineThreads.daemonThreads("server-a"));
        serverA = new EngineAssembly(engine.queue, new EffectStore(Jdbi.create(pool), EffectSettings.DEFAULT), threads, "server-a",
                WorkerListener.NONE, MaintenanceListener.NONE);
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.refill();
        serverA.stop(Duration.ofSeconds(5));
        threads.close();
        engine.close();
    }

    private Maintenance.Settings quickMaintenance() {
        return Maintenance.Settings.DEFAULT.withInterval(OFTEN);
    }

    @Test
    void aJobOutlivingItsLeaseIsNeitherReapedNorRedeliveredWhileMaintenanceWaitsForTheDatabase() throws Exception {
        String queue = engine.queueName;
        // A delayed job, so the reconciler reads the effect store on every run, beside the effect retention.
        engine.queue.enqueue(queue, NewJob.of("{}").delayedBy(Duration.ofHours(1)));
        String job = engine.queue.enqueue(queue, NewJob.of("{}")).id();
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
        engine.startMaintenance(OFTEN);
        await("job " + job + " completed, or reaped").atMost(PATIENCE)
                .until(() -> state(job) == JobState.COMPLETED || events(job).contains("reaped"));
        int stuckOnThePool = pool.mostWaiting();
        pool.refill();

        assertThat(stuckOnThePool).as("the reconciler and the effect retention both waited for a connection").isEqualTo(2);
        assertThat(events(job)).as("the job's history").doesNotContain("reaped");
        await("job " + job + " completed").atMost(PATIENCE).until(() -> state(job) == JobState.COMPLETED);
        JobView done = engine.queue.job(queue, job).orElseThrow();
        assertThat(done.attempts()).as("deliveries").isEqualTo(1);
        assertThat(handled).as("handler runs").hasValue(1);
    }

    private JobState state(String job) {
        return engine.queue.job(engine.queueName, job).map(JobView::state).orElse(null);
    }

    private List<String> events(String job) {
        return engine.queue.history(engine.queueName, job).stream().map(JobEvent::event).toList();
    }

}
