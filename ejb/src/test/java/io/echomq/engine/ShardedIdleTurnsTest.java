package io.echomq.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.demo.LedgerSummary;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.NewJob;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.shard.ShardLanes;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.queue.shard.ShardedQueue;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.services.ValkeyCluster;
import io.echomq.worker.FaultInjector;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

/**
 * Idle workers of a queue of three shards take the queue's idle turns (docs/SHARDING.md, 5), on
 * the testkit's 3-master Valkey Cluster: N idle workers ask every shard about once per idle poll
 * between them, not N times, a job sent to any shard is still claimed at the next turn, and a
 * turn whose worker is gone only delays a job.
 */
@WithRealServices
class ShardedIdleTurnsTest {

    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final Duration IDLE_POLL = Duration.ofMillis(100);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":100}";

    private static final ValkeyCluster cluster = RealServices.valkeyCluster();
    private static final RedisClusterClient redis = cluster.sharedClient();

    private final WorkerCalls calls = new WorkerCalls();
    private String queueName;
    private ShardedEngine sharded;
    private ShardedQueue queue;
    private ShardLayout layout;
    /** Shard 0's keys are the queue's own: its idle turns are booked there. */
    private String idleTurns;

    @BeforeEach
    void engine(PostgresService postgres) {
        queueName = "shidle-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
        sharded = new ShardedEngine(redis, postgres, queueName, calls, MaintenanceListener.NONE);
        LedgerChargeHandler.createTables(sharded.database.dataSource());
        queue = sharded.shards.sharded(queueName).orElseThrow();
        layout = queue.layout();
        idleTurns = new QueueKeys(queueName).idleTurns();
    }

    @AfterEach
    void stop() throws InterruptedException {
        sharded.close();
    }

    @Test
    void idleClaimsOverTheShardsBookTurnsOneIdlePollApartAndAClaimThatFindsAJobOnAnyShardBooksNone() {
        // An idle poll long enough that the turns booked below are still ahead when the claims after them run.
        Duration idlePoll = Duration.ofSeconds(1);
        CompletedAndClaimed busy = queue.leases().completeAndClaim(queueName, List.of(), LEASE, 1, "not-idle");
        assertThat(busy.untilIdleTurn()).as("a claim by a worker that is not idle").isZero();
        assertThat(redis.exists(idleTurns)).as("a turn booked by a worker that is not idle").isFalse();

        long poll = idlePoll.toMillis();
        List<Long> booked = new ArrayList<>();
        for (String worker : List.of("w1", "w2", "w3")) {
            long wait = idleClaim(worker, idlePoll).untilIdleTurn().toMillis();
            assertThat(wait).as("wait of %s for its turn", worker).isBetween(poll, (booked.size() + 1) * poll);
            booked.add(Long.parseLong(redis.get(idleTurns)));
        }
        // On shard 0's clock, each turn one idle poll after the one before: one claim over the shards per idle poll.
        assertThat(booked.get(1) - booked.get(0)).isEqualTo(poll);
        assertThat(booked.get(2) - booked.get(1)).isEqualTo(poll);

        String lastBooked = Long.toString(booked.get(2));
        for (int shard : List.of(1, 2, 0)) {
            queue.submissions().enqueue(queueName, NewJob.of(CHARGE).inLane(laneOn(shard)));

            CompletedAndClaimed found = idleClaim("w1", idlePoll);

            assertThat(found.claimed()).extracting(job -> layout.shardOfJob(job.id())).as("shards of the jobs claimed").containsExactly(shard);
            assertThat(found.untilIdleTurn()).as("wait after finding a job on shard %d", shard).isZero();
            // The key lapses one idle poll after its last turn; what it must not hold is a turn booked after that one.
            assertThat(redis.get(idleTurns)).as("the last turn booked, after a claim found a job on shard %d", shard).isIn(lastBooked, null);
        }
        queue.submissions().enqueue(queueName, NewJob.of(CHARGE).inLane(laneOn(2)));
        assertThat(queue.leases().completeAndClaim(queueName, List.of(), LEASE, 1, "not-idle").claimed())
                .as("a busy claim while turns are booked").hasSize(1);
    }

    @Test
    void threeIdleWorkersAskEachShardAboutOncePerIdlePollBetweenThemNotThreeTimes() throws InterruptedException {
        Map<Integer, Integer> masterOfShard = new HashMap<>();
        for (int shard = 0; shard < layout.shards(); shard++) {
            masterOfShard.put(shard, cluster.masterPortOfKey(layout.keys(shard).prefix()));
        }
        assertThat(masterOfShard.values()).as("masters of the shards").doesNotHaveDuplicates();
        startWorkers(3);
        // Past each worker's first back-off (waits of 1, 2, 4, … ms up to the idle poll: 7 claims each).
        await().atMost(PATIENCE).until(() -> calls.claimCalls.size() >= 30);

        int turnsBefore = calls.claimCalls.size();
        Map<Integer, Long> scriptCallsBefore = scriptCallsByMaster();
        long start = System.nanoTime();
        // A measuring window, not a wait for an event: idle workers are asked how often they claim.
        Thread.sleep(3_000);
        double polls = (System.nanoTime() - start) / (double) IDLE_POLL.toNanos();
        int turns = calls.claimCalls.size() - turnsBefore;
        Map<Integer, Long> scriptCallsAfter = scriptCallsByMaster();

        Map<Integer, Long> askedOfShard = new HashMap<>();
        masterOfShard.forEach((shard, master) -> askedOfShard.put(shard, scriptCallsAfter.get(master) - scriptCallsBefore.get(master)));

        // Taking turns: about one claim over the shards per idle poll (30 here), so one call on each
        // shard per idle poll; each worker alone would make 90 of each.
        String figures = String.format(Locale.ROOT, "over %.0f idle polls, 3 idle workers made %d claims, and these calls on each shard: %s",
                polls, turns, askedOfShard);
        assertThat(turns).as(figures).isLessThanOrEqualTo((int) (polls * 1.5));
        assertThat(askedOfShard.values()).as(figures).allSatisfy(asked -> assertThat(asked).isLessThanOrEqualTo((long) (polls * 1.5)));
        assertThat(calls.claimCalls).allMatch(jobs -> jobs == 0);
    }

    @Test
    void aJobSentToAnyShardOfIdleWorkersTakingTurnsIsClaimedWithinAboutOneIdlePoll() throws InterruptedException {
        startWorkers(3);
        Duration bound = IDLE_POLL.plus(Duration.ofMillis(500));
        List<Long> claimedAfterMillis = new ArrayList<>();
        for (int shard : List.of(2, 1, 0)) {
            // Every worker idle again (the one that took the last job is past its back-off) and taking turns.
            int turnsSoFar = calls.claimCalls.size();
            await().atMost(PATIENCE).until(() -> calls.claimCalls.size() >= turnsSoFar + 30 && redis.exists(idleTurns));

            long sentAt = System.nanoTime();
            queue.submissions().enqueue(queueName, NewJob.of(CHARGE).inLane(laneOn(shard)));
            Long leasedAt = calls.leasedAt.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);

            assertThat(leasedAt).as("the job on shard %d leased", shard).isNotNull();
            claimedAfterMillis.add(TimeUnit.NANOSECONDS.toMillis(leasedAt - sentAt));
            int sent = claimedAfterMillis.size();
            await().atMost(PATIENCE).until(() -> calls.completions.size() == sent);
        }

        assertThat(claimedAfterMillis).as("ms from enqueue to lease of jobs on shards 2, 1, 0 (idle poll %d ms)", IDLE_POLL.toMillis())
                .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(bound.toMillis()));
        assertThat(LedgerSummary.of(sharded.jdbi, queueName).entries()).isEqualTo(3);
    }

    @Test
    void turnsBookedByWorkersThatStoppedDelayAJobOnAnotherShardButNeverLoseIt() {
        startWorkers(1);
        await().atMost(PATIENCE).until(() -> redis.exists(idleTurns));
        // Three workers booked the next turns and died before taking them: those claims over the shards never come.
        for (String gone : List.of("gone-1", "gone-2", "gone-3")) {
            assertThat(idleClaim(gone, IDLE_POLL).untilIdleTurn()).as("turn booked by %s", gone).isPositive();
        }
        queue.submissions().enqueue(queueName, NewJob.of(CHARGE).inLane(laneOn(2)));

        // The job waits in its lane's pending set on shard 2 through the lost turns to the live worker's, then is applied once.
        await().atMost(PATIENCE).until(() -> calls.completions.size() == 1);
        ClaimedJob applied = calls.completions.get(0);
        assertThat(layout.shardOfJob(applied.id())).isEqualTo(2);
        assertThat(applied.lease().token()).isEqualTo(1);
        assertThat(LedgerSummary.of(sharded.jdbi, queueName).entries()).isEqualTo(1);
    }

    private CompletedAndClaimed idleClaim(String worker, Duration idlePoll) {
        return queue.leases().completeAndClaim(queueName, List.of(), LEASE, 1, worker, idlePoll);
    }

    private void startWorkers(int count) {
        for (int i = 0; i < count; i++) {
            sharded.engine.startWorker(queueName, new LedgerChargeHandler(), WorkerSettings.DEFAULT.withIdlePoll(IDLE_POLL),
                    "idle-" + i, FaultInjector.NONE);
        }
    }

    /** A lane whose jobs live on {@code shard}. */
    private String laneOn(int shard) {
        return ShardLanes.firstOn(layout, shard);
    }

    /** Script calls each master has served so far ({@code INFO commandstats}): here, the workers' claims. */
    private static Map<Integer, Long> scriptCallsByMaster() {
        Map<Integer, Long> calls = new HashMap<>();
        for (int port : cluster.masterPorts()) {
            try (Jedis master = cluster.connectTo(port)) {
                long evalsha = 0;
                for (String line : master.info("commandstats").split("\r?\n")) {
                    if (line.startsWith("cmdstat_evalsha:")) {
                        evalsha = Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
                    }
                }
                calls.put(port, evalsha);
            }
        }
        return calls;
    }

    /** What the workers report: how many jobs each claim call leased, when a call leased some, and the jobs completed. */
    private static final class WorkerCalls implements WorkerListener {

        final List<Integer> claimCalls = new CopyOnWriteArrayList<>();
        final LinkedBlockingQueue<Long> leasedAt = new LinkedBlockingQueue<>();
        final List<ClaimedJob> completions = new CopyOnWriteArrayList<>();

        @Override
        public void claimCall(String queue, Duration took, int jobs) {
            claimCalls.add(jobs);
            if (jobs > 0) {
                leasedAt.add(System.nanoTime());
            }
        }

        @Override
        public void completed(ClaimedJob job) {
            completions.add(job);
        }
    }
}
