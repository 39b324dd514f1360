package io.echomq.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.engine.EngineThreads;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.MaintenanceLease;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueAdmin;
import io.echomq.queue.ServerClock;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.worker.Engine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The maintenance duties over a queue run on one engine at a time however many engines serve it,
 * and another engine takes them over when that one stops or dies.
 */
@WithRealServices
class MaintenanceLeaseTest {

    private static final Duration INTERVAL = Duration.ofMillis(50);
    private static final Duration SHORT_LEASE = Duration.ofMillis(100);

    private Engine engine;
    /** Every engine's maintenance a test starts, each on threads of its own so that one can die alone. */
    private final List<EngineThreads> engineThreads = new ArrayList<>();
    private final List<Maintenance> started = new ArrayList<>();
    /** Which engines ran the reaper over the queue. */
    private final Set<String> reaperRanOn = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void engine(ValkeyService valkey, PostgresService postgres) {
        engine = new Engine(valkey, postgres);
    }

    @AfterEach
    void stop() throws InterruptedException {
        started.forEach(Maintenance::stop);
        engineThreads.forEach(EngineThreads::close);
        engine.close();
    }

    private Maintenance startEngine(String name) {
        EngineThreads threads = EngineThreads.from(EngineThreads.daemonThreads(name));
        engineThreads.add(threads);
        Maintenance maintenance = new Maintenance(engine.queue, engine.effects, List.of(engine.queueName),
                Maintenance.Settings.DEFAULT.withInterval(INTERVAL), name, new MaintenanceListener() {
                    @Override
                    public void ran(String duty, String queue, Pass pass, Duration took) {
                        if (duty.equals("reaper")) {
                            reaperRanOn.add(name);
                        }
                    }
                });
        maintenance.start(threads.maintenance(), threads.dutyRuns());
        started.add(maintenance);
        return maintenance;
    }

    private String holderNow() {
        MaintenanceLease lease = admin().holdMaintenance(engine.queueName, "observer", Duration.ofMillis(10));
        assertThat(lease).as("the lease while engines run").isInstanceOf(MaintenanceLease.HeldBy.class);
        return ((MaintenanceLease.HeldBy) lease).holder();
    }

    private QueueAdmin admin() {
        return engine.queue.admin();
    }

    /** A job whose worker vanished: its lease is over, and only a reaper returns it to pending. */
    private Enqueued jobOfAWorkerThatVanished() {
        Enqueued job = engine.queue.submissions().enqueue(engine.queueName, NewJob.of("{}"));
        ClaimedJob claimed = engine.queue.leases().claim(engine.queueName, SHORT_LEASE, 1, "vanished").get(0);
        ServerClock.of(engine.redis, engine.queueName).awaitPast(claimed.leaseUntil());
        return job;
    }

    private JobState state(Enqueued job) {
        return engine.queue.reads().job(engine.queueName, job.id()).map(JobView::state).orElseThrow();
    }

    @Test
    void theDutiesOverAQueueRunOnOneEngineHoweverManyServeIt() {
        startEngine("engine-a");
        startEngine("engine-b");
        startEngine("engine-c");

        // Sixty reaper intervals: enough for each engine to have run it many times, were it not held back.
        await().pollDelay(INTERVAL.multipliedBy(60)).atMost(Duration.ofSeconds(20)).until(() -> !reaperRanOn.isEmpty());

        assertThat(reaperRanOn).as("engines that ran the reaper over the queue").containsExactly(holderNow());
    }

    @Test
    void anEngineThatStopsHandsTheQueueToAnotherAtOnce() {
        Maintenance first = startEngine("engine-a");
        await().atMost(Duration.ofSeconds(10)).until(() -> reaperRanOn.contains("engine-a"));
        startEngine("engine-b");

        first.stop();
        Enqueued job = jobOfAWorkerThatVanished();

        await().atMost(Duration.ofSeconds(10)).until(() -> state(job) == JobState.PENDING);
        assertThat(holderNow()).isEqualTo("engine-b");
        assertThat(reaperRanOn).contains("engine-b");
    }

    @Test
    void anEngineThatDiesIsReplacedOnceItsLeaseRunsOut() {
        startEngine("engine-a");
        await().atMost(Duration.ofSeconds(10)).until(() -> reaperRanOn.contains("engine-a"));
        startEngine("engine-b");

        // Dies: its threads stop at once, and nothing hands its lease back.
        engineThreads.get(0).close();
        Enqueued job = jobOfAWorkerThatVanished();

        await().atMost(Duration.ofSeconds(20)).until(() -> state(job) == JobState.PENDING);
        assertThat(holderNow()).isEqualTo("engine-b");
    }

    @Test
    void aHolderKeepsItsTokenAndEveryNewHoldingGetsAHigherOne() {
        Duration length = Duration.ofSeconds(30);
        MaintenanceLease.Held a = (MaintenanceLease.Held) admin().holdMaintenance(engine.queueName, "a", length);
        MaintenanceLease.Held renewed = (MaintenanceLease.Held) admin().holdMaintenance(engine.queueName, "a", length);
        MaintenanceLease refused = admin().holdMaintenance(engine.queueName, "b", length);
        boolean releasedByOther = admin().releaseMaintenance(engine.queueName, "b");
        boolean released = admin().releaseMaintenance(engine.queueName, "a");
        MaintenanceLease.Held b = (MaintenanceLease.Held) admin().holdMaintenance(engine.queueName, "b", length);

        assertThat(renewed.token()).isEqualTo(a.token());
        assertThat(refused).isInstanceOfSatisfying(MaintenanceLease.HeldBy.class, by -> {
            assertThat(by.holder()).isEqualTo("a");
            assertThat(by.remaining()).isPositive().isLessThanOrEqualTo(length);
        });
        assertThat(releasedByOther).as("a release by an engine that does not hold the lease").isFalse();
        assertThat(released).isTrue();
        assertThat(b.token()).isGreaterThan(a.token());
    }
}
