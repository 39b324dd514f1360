package io.echomq.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.api.JobRequest;
import io.echomq.demo.LedgerChargeHandler;
import io.echomq.maintenance.Maintenance;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.maintenance.Pass;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.shard.QueueShards;
import io.echomq.queue.shard.ShardCountRefusedException;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.queue.shard.ShardLayouts;
import io.echomq.queue.shard.ShardedQueue;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.services.ValkeyCluster;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

/**
 * A queue of three shards run by the engine's own assembly on the testkit's 3-master Valkey
 * Cluster (docs/SHARDING.md): its worker claims over every shard without knowing shards exist, its
 * maintenance reaps every shard under the queue's one lease, and each job's effect commits once.
 */
@WithRealServices
class ShardedEngineTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final int LANES = 24;
    private static final int JOBS_PER_LANE = 25;

    private static final ValkeyCluster cluster = RealServices.valkeyCluster();
    private static final RedisClusterClient redis = cluster.sharedClient();

    @Test
    void jobsOfManyLanesOnAThreeShardQueueAreEachAppliedOnceOnAllThreeMastersAndAbandonedLeasesOnEveryShardAreReaped(
            PostgresService postgres) throws Exception {
        String queueName = newQueue();
        try (ShardedEngine sharded = new ShardedEngine(redis, postgres, queueName, WorkerListener.NONE, MaintenanceListener.NONE)) {
            LedgerChargeHandler.createTables(sharded.database.dataSource());
            Jdbi jdbi = sharded.jdbi;
            ShardedQueue queue = sharded.shards.sharded(queueName).orElseThrow();
            ShardLayout layout = queue.layout();
            Map<String, String> accountOfJob = new HashMap<>();
            for (int round = 0; round < JOBS_PER_LANE; round++) {
                for (int lane = 0; lane < LANES; lane++) {
                    String account = "lane-" + lane + "/" + round;
                    String id = queue.submissions().enqueue(queueName,
                            NewJob.of("{\"account\":\"" + account + "\",\"amountCents\":100}").inLane("lane-" + lane)).id();
                    accountOfJob.put(id, account);
                }
            }
            // A worker that dies holding leases on every shard: only maintenance on every shard gives them back.
            List<ClaimedJob> abandoned = queue.leases().claim(queueName, Duration.ofMillis(300), 30, "died");
            assertThat(abandoned.stream().map(job -> layout.shardOfJob(job.lease().jobId())).collect(Collectors.toSet()))
                    .as("shards of the abandoned leases").containsExactlyInAnyOrder(0, 1, 2);

            EngineAssembly engine = sharded.engine;
            engine.startWorker(queueName, new LedgerChargeHandler(), WorkerSettings.DEFAULT.withConcurrency(4));
            engine.startMaintenance(List.of(queueName), Maintenance.Settings.DEFAULT.withInterval(Duration.ofMillis(100)));

            int jobs = LANES * JOBS_PER_LANE;
            await("every job of the sharded queue completed").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> {
                        QueueStats stats = queue.reads().stats(queueName);
                        assertThat(stats.completed()).as("%s", stats).isEqualTo(jobs);
                        assertThat(stats.pending() + stats.delayed() + stats.active()).as("%s", stats).isZero();
                    });

            Map<String, Long> chargesPerAccount = jdbi.withHandle(h -> h.createQuery(
                    "SELECT account, count(*) AS n FROM echomq.demo_ledger WHERE queue = :queue GROUP BY account")
                    .bind("queue", queueName)
                    .reduceRows(new HashMap<String, Long>(), (map, row) -> {
                        map.put(row.getColumn("account", String.class), row.getColumn("n", Long.class));
                        return map;
                    }));
            assertThat(chargesPerAccount).as("charges per account").hasSize(jobs);
            assertThat(chargesPerAccount.values()).as("charges per account").containsOnly(1L);
            long effectRows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM echomq.effect WHERE queue = :queue")
                    .bind("queue", queueName).mapTo(Long.class).one());
            assertThat(effectRows).as("effect rows of the queue").isEqualTo(jobs);
            for (String abandonedId : abandoned.stream().map(job -> job.lease().jobId()).toList()) {
                assertThat(chargesPerAccount).containsEntry(accountOfJob.get(abandonedId), 1L);
            }
            Map<Integer, Long> completedOnMaster = new HashMap<>();
            for (int shard = 0; shard < layout.shards(); shard++) {
                QueueKeys keys = layout.keys(shard);
                int master = cluster.masterPortOfKey(keys.prefix());
                try (Jedis node = cluster.connectTo(master)) {
                    completedOnMaster.merge(master, node.zcard(keys.completed()), Long::sum);
                }
            }
            assertThat(completedOnMaster.keySet()).as("masters holding the completed jobs")
                    .containsExactlyInAnyOrderElementsOf(cluster.masterPorts());
            assertThat(completedOnMaster.values()).as("completed jobs per master").allSatisfy(n -> assertThat(n).isPositive());
        }
    }

    @Test
    void anEngineLeftRunningAfterItsQueuesShardCountChangedClaimsNothingAndSaysWhy() {
        String queueName = newQueue();
        ShardedQueue oldEngine = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(queueName, 3));
        // The queue is empty, so a new engine may lay it out over two shards.
        ShardedQueue newEngine = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(queueName, 2));
        IntStream.range(0, 6).forEach(i -> newEngine.submissions().enqueue(queueName, NewJob.of("{}").inLane("lane-" + i)));

        assertThatThrownBy(() -> oldEngine.leases().claim(queueName, Duration.ofSeconds(30), 10, "old"))
                .isInstanceOf(ShardCountRefusedException.class)
                .hasMessageStartingWith("echomq.queues." + queueName + ".shards: this engine claims queue '" + queueName + "' as 3 shards");
        assertThat(newEngine.reads().stats(queueName).pending()).as("jobs left for the engines of the new count").isEqualTo(6);
        assertThat(newEngine.leases().claim(queueName, Duration.ofSeconds(30), 10, "new")).hasSize(6);
    }

    @Test
    void aShardWhoseCopyOfTheSettingsLaggedCatchesUpInTheEnginesMaintenance(PostgresService postgres) throws Exception {
        String queueName = newQueue();
        try (ShardedEngine sharded = new ShardedEngine(redis, postgres, queueName, WorkerListener.NONE, MaintenanceListener.NONE)) {
            QueueShards shards = sharded.shards;
            ShardLayout layout = shards.sharded(queueName).orElseThrow().layout();
            shards.pause(queueName);
            // Shard 1 as a writer that died between shard 0 and the copies leaves it: unpaused, one version behind.
            String lagging = layout.keys(1).meta();
            redis.hset(lagging, "meta_version", Long.toString(Long.parseLong(redis.hget(lagging, "meta_version")) - 1));
            redis.hdel(lagging, "paused");
            assertThat(shards.partsOf(queueName).get(1).reads().stats(queueName).paused()).as("shard 1 before maintenance").isFalse();

            sharded.engine.maintenance(List.of(queueName), Maintenance.Settings.DEFAULT).runOnce();

            assertThat(shards.partsOf(queueName)).as("every shard after one maintenance pass")
                    .allSatisfy(shard -> assertThat(shard.reads().stats(queueName).paused()).isTrue());
        }
    }

    @Test
    void theEnginesMaintenanceSweepsTheKeyHomesOfAShardedQueueAndSyncsItsSettings(PostgresService postgres) throws Exception {
        String queueName = newQueue();
        Set<String> ran = ConcurrentHashMap.newKeySet();
        MaintenanceListener duties = new MaintenanceListener() {
            @Override
            public void ran(String duty, String queue, Pass pass, Duration took) {
                if (queue.equals(queueName)) {
                    ran.add(duty);
                }
            }
        };
        try (ShardedEngine sharded = new ShardedEngine(redis, postgres, queueName, WorkerListener.NONE, duties)) {
            sharded.engine.maintenance(List.of(queueName), Maintenance.Settings.DEFAULT).runOnce();

            // Without the sweep, a submitter stopped between reserving a key's home and making its
            // job would leave the key in flight for every other shard's lanes for good.
            assertThat(ran).as("the sharded queue's duties in one maintenance pass").contains("key-homes", "shard-settings");
        }
    }

    @Test
    void aHandlersFollowUpIntoAThreeShardQueueIsMadeOnceOnItsLanesShardUnderAnIdNamingItAndAppliedOnce(PostgresService postgres)
            throws Exception {
        String orders = newQueue();
        String charges = newQueue();
        int jobs = 12;
        try (ShardedEngine sharded = new ShardedEngine(redis, postgres, Map.of(orders, 3, charges, 3), WorkerListener.NONE, MaintenanceListener.NONE, true)) {
            LedgerChargeHandler.createTables(sharded.database.dataSource());
            QueueShards shards = sharded.shards;
            ShardLayout layout = shards.sharded(charges).orElseThrow().layout();
            AtomicInteger handlerRuns = new AtomicInteger();
            WorkerSettings settings = WorkerSettings.DEFAULT.withConcurrency(2).withIdlePoll(Duration.ofMillis(20));
            sharded.engine.startWorker(orders, job -> {
                handlerRuns.incrementAndGet();
                int n = Integer.parseInt(job.payload());
                job.followUp("charge", JobRequest.of(charges, "{\"account\":\"order-" + n + "\",\"amountCents\":100}")
                        .withLane("charge-lane-" + n % 6));
            }, settings);
            sharded.engine.startWorker(charges, new LedgerChargeHandler(), settings);
            for (int n = 0; n < jobs; n++) {
                shards.enqueue(orders, NewJob.of(Integer.toString(n)).inLane("order-lane-" + n % 3));
            }

            await("every follow-up applied").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(shards.stats(charges).completed()).as("%s", shards.stats(charges)).isEqualTo(jobs));

            assertThat(handlerRuns).as("order handler runs").hasValue(jobs);
            assertThat(shards.stats(charges).total()).as("follow-up jobs over every shard: one per order").isEqualTo(jobs);
            List<JobView> made = shards.jobs(charges, JobState.COMPLETED, Optional.empty(), 100).jobs();
            assertThat(made).hasSize(jobs).allSatisfy(job -> {
                assertThat(layout.shardOfJob(job.id())).as("the shard job %s in %s names", job.id(), job.lane())
                        .isEqualTo(layout.shardOfLane(job.lane()));
                assertThat(job.idempotencyKey()).hasValueSatisfying(key -> assertThat(key).startsWith("followup:" + orders + ":"));
            });
            for (int shard = 0; shard < layout.shards(); shard++) {
                int on = shard;
                long lanesJobs = made.stream().filter(job -> layout.shardOfLane(job.lane()) == on).count();
                assertThat(shards.partsOf(charges).get(shard).reads().stats(charges).completed())
                        .as("follow-ups completed on shard %d, the shard of their lanes", shard).isEqualTo(lanesJobs);
            }
            Map<String, Long> chargesPerAccount = sharded.jdbi.withHandle(h -> h.createQuery(
                    "SELECT account, count(*) AS n FROM echomq.demo_ledger WHERE queue = :queue GROUP BY account")
                    .bind("queue", charges)
                    .reduceRows(new HashMap<String, Long>(), (map, row) -> {
                        map.put(row.getColumn("account", String.class), row.getColumn("n", Long.class));
                        return map;
                    }));
            assertThat(chargesPerAccount).as("charges per order").hasSize(jobs);
            assertThat(chargesPerAccount.values()).as("charges per order").containsOnly(1L);
        }
    }

    /**
     * A queue another engine laid out over 3 shards, which this engine only sends follow-ups to
     * (its configuration does not name it): the follow-ups follow the layout Valkey records, each
     * made once on its lane's shard under an id naming that shard, and the layout is left as it is.
     */
    @Test
    void aFollowUpIntoAShardedQueueThisEngineDoesNotConfigureIsMadeOnItsLanesShard(PostgresService postgres) throws Exception {
        String orders = newQueue();
        String charges = newQueue();
        int jobs = 12;
        ShardedQueue laidOutElsewhere = ShardedQueue.connect(redis, QueueSettings.DEFAULT, ShardLayout.of(charges, 3));
        ShardLayout layout = laidOutElsewhere.layout();
        try (ShardedEngine sending = new ShardedEngine(redis, postgres, Map.of(orders, 1), WorkerListener.NONE, MaintenanceListener.NONE, true)) {
            WorkerSettings settings = WorkerSettings.DEFAULT.withConcurrency(2).withIdlePoll(Duration.ofMillis(20));
            sending.engine.startWorker(orders, job -> job.followUp("charge",
                    JobRequest.of(charges, "{\"n\":" + job.payload() + "}").withLane("charge-lane-" + Integer.parseInt(job.payload()) % 6)),
                    settings);
            for (int n = 0; n < jobs; n++) {
                sending.shards.enqueue(orders, NewJob.of(Integer.toString(n)));
            }

            await("every follow-up made").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(laidOutElsewhere.reads().stats(charges).pending())
                            .as("%s", laidOutElsewhere.reads().stats(charges)).isEqualTo(jobs));

            assertThat(sending.shards.shardsOf(charges)).as("the sending engine's layout of the queue").isEqualTo(3);
            List<JobView> made = laidOutElsewhere.reads().jobs(charges, JobState.PENDING, Optional.empty(), 100).jobs();
            assertThat(made).hasSize(jobs).allSatisfy(job -> assertThat(layout.shardOfJob(job.id()))
                    .as("the shard job %s in %s names", job.id(), job.lane()).isEqualTo(layout.shardOfLane(job.lane())));
            assertThat(new ShardLayouts(redis, new ScriptRunner(redis, ReplicaWait.NONE)).recordedShards(charges))
                    .as("the layout the sender found").isEqualTo(3);
        }
    }

    @Test
    void twoEnginesTickingTheSameShardedQueueFireEachSlotOnceOnTheSchedulesShard(PostgresService postgres) throws Exception {
        String queueName = newQueue();
        try (ShardedEngine one = new ShardedEngine(redis, postgres, queueName, WorkerListener.NONE, MaintenanceListener.NONE);
                ShardedEngine two = new ShardedEngine(redis, postgres, queueName, WorkerListener.NONE, MaintenanceListener.NONE)) {
            ShardedQueue queue = one.shards.sharded(queueName).orElseThrow();
            ShardLayout layout = queue.layout();
            Map<String, String> laneOf = new HashMap<>();
            for (int shard = 0; shard < layout.shards(); shard++) {
                int on = shard;
                String lane = IntStream.range(0, 1_000).mapToObj(i -> "lane-" + i).filter(l -> layout.shardOfLane(l) == on)
                        .findFirst().orElseThrow();
                laneOf.put("every-20ms-" + shard, lane);
                queue.schedules().put(Schedule.every(queueName, "every-20ms-" + shard, Duration.ofMillis(20), "{}").inLane(lane), "api");
            }
            List<Maintenance> tickers = List.of(one.engine.maintenance(List.of(queueName), Maintenance.Settings.DEFAULT),
                    two.engine.maintenance(List.of(queueName), Maintenance.Settings.DEFAULT));

            // Both engines' maintenance at once, as when a lease changes hands mid-tick: only the slot's compare-and-set decides.
            AtomicBoolean enough = new AtomicBoolean();
            List<Thread> running = tickers.stream().map(ticker -> new Thread(() -> {
                while (!enough.get()) {
                    ticker.runOnce();
                }
            })).toList();
            running.forEach(Thread::start);
            try {
                await("every schedule fired five slots").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(50))
                        .until(() -> laneOf.keySet().stream().allMatch(name -> queue.schedules().get(queueName, name).orElseThrow().fired() >= 5));
            } finally {
                enough.set(true);
                for (Thread thread : running) {
                    thread.join();
                }
            }

            for (Map.Entry<String, String> schedule : laneOf.entrySet()) {
                int shard = layout.shardOfLane(schedule.getValue());
                long fired = queue.schedules().get(queueName, schedule.getKey()).orElseThrow().fired();
                List<JobView> made = one.shards.jobs(queueName, JobState.PENDING, Optional.empty(), 500).jobs().stream()
                        .filter(job -> job.idempotencyKey().orElseThrow().startsWith("schedule:" + schedule.getKey() + ":")).toList();
                assertThat(fired).as("slots %s fired", schedule.getKey()).isGreaterThanOrEqualTo(5);
                assertThat(made).as("%s's jobs: one per slot fired", schedule.getKey()).hasSize((int) fired)
                        .allSatisfy(job -> assertThat(layout.shardOfJob(job.id())).as("job %s's shard", job.id()).isEqualTo(shard))
                        .extracting(job -> job.idempotencyKey().orElseThrow()).doesNotHaveDuplicates();
            }
        }
    }

    @Test
    void aFlowOverTheShardsAndAQueueOfOneAppliesEveryChildOnceAndItsParentOnceAfterThemThroughTheEnginesMaintenance(
            PostgresService postgres) throws Exception {
        String flows = newQueue();
        String plain = newQueue();
        try (ShardedEngine sharded = new ShardedEngine(redis, postgres, Map.of(flows, 3, plain, 1), WorkerListener.NONE,
                MaintenanceListener.NONE, false)) {
            LedgerChargeHandler.createTables(sharded.database.dataSource());
            QueueShards shards = sharded.shards;
            ShardLayout layout = shards.sharded(flows).orElseThrow().layout();
            LedgerChargeHandler ledger = new LedgerChargeHandler();
            Map<String, List<String>> outcomesSeenByParent = new ConcurrentHashMap<>();
            WorkerSettings settings = WorkerSettings.DEFAULT.withConcurrency(2).withIdlePoll(Duration.ofMillis(20));
            sharded.engine.startWorker(flows, job -> {
                if (!job.children().isEmpty()) {
                    outcomesSeenByParent.put(job.jobId(), job.children().stream().map(child -> child.outcome().orElse("unsettled")).toList());
                }
                ledger.handle(job);
            }, settings);
            sharded.engine.startWorker(plain, ledger, settings);
            sharded.engine.startMaintenance(List.of(flows, plain), Maintenance.Settings.DEFAULT.withInterval(Duration.ofMillis(100)));
            int children = 6;
            NewFlow[] nodes = new NewFlow[children + 1];
            for (int i = 0; i < children; i++) {
                int shard = i % 3;
                String lane = IntStream.range(0, 1_000).mapToObj(n -> "child-lane-" + n).filter(l -> layout.shardOfLane(l) == shard)
                        .skip(i / 3).findFirst().orElseThrow();
                nodes[i] = NewFlow.of(flows, NewJob.of(charge("child-" + i)).inLane(lane));
            }
            nodes[children] = NewFlow.of(plain, NewJob.of(charge("plain-child")));

            FlowSubmitted root = shards.submitFlow(NewFlow.of(flows, NewJob.of(charge("parent")).inLane("parent-lane"), nodes));

            await("the parent completed").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                    assertThat(shards.readsOf(flows, root.id()).job(flows, root.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED));

            List<String> childIds = shards.children(flows, root.id()).stream().map(child -> child.jobId().orElseThrow()).toList();
            assertThat(childIds.subList(0, children).stream().map(layout::shardOfJob).collect(Collectors.toSet()))
                    .as("shards of the children in the sharded queue").containsExactlyInAnyOrder(0, 1, 2);
            assertThat(layout.shardOfJob(root.id())).isEqualTo(layout.shardOfLane("parent-lane"));
            assertThat(outcomesSeenByParent).as("the parent ran once, after every child completed")
                    .containsOnlyKeys(root.id()).containsEntry(root.id(), java.util.Collections.nCopies(children + 1, "completed"));
            Map<String, Long> chargesPerAccount = sharded.jdbi.withHandle(h -> h.createQuery(
                    "SELECT account, count(*) AS n FROM echomq.demo_ledger GROUP BY account")
                    .reduceRows(new HashMap<String, Long>(), (map, row) -> {
                        map.put(row.getColumn("account", String.class), row.getColumn("n", Long.class));
                        return map;
                    }));
            assertThat(chargesPerAccount).as("charges per job of the flow").hasSize(children + 2);
            assertThat(chargesPerAccount.values()).as("charges per job of the flow").containsOnly(1L);
        }
    }

    private static String charge(String account) {
        return "{\"account\":\"" + account + "\",\"amountCents\":100}";
    }

    private static String newQueue() {
        return "shengine-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
    }
}
