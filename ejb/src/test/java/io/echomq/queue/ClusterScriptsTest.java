package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.internal.ScriptSource;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.queue.shard.ShardLayouts;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * On a real Valkey Cluster (3 masters + 3 replicas): queues whose hash tags land on different
 * masters each live whole on their master, and every script of the catalog runs there without a
 * CROSSSLOT error, including the keys the scripts build themselves from the queue's prefix.
 */
class ClusterScriptsTest {

    private static final ValkeyCluster cluster = RealServices.valkeyCluster();
    private static final RedisClusterClient redis = cluster.sharedClient();
    private static final QueueClient client = QueueClient.connect(redis, QueueSettings.DEFAULT);

    @Test
    void queuesPickedByTheirSlotsLiveOnThreeDifferentMasters() {
        List<String> queues = queuesOnEveryMaster();

        List<Integer> masters = queues.stream().map(ClusterScriptsTest::masterOf).distinct().toList();
        assertThat(masters).hasSize(3).containsExactlyInAnyOrderElementsOf(cluster.masterPorts());
        for (String queue : queues) {
            client.submissions().enqueue(queue, NewJob.of("{}"));
            try (Jedis master = cluster.connectTo(masterOf(queue))) {
                assertThat(master.exists(new QueueKeys(queue).seq())).as("queue %s is stored on its slot's master", queue).isTrue();
            }
        }
    }

    @Test
    void theHealthCheckPingIsAnsweredThroughTheClusterClient() {
        assertThat(redis.ping()).isEqualTo("PONG");   // what the engine's readiness check sends
    }

    @Test
    void everyScriptOfTheCatalogRunsOnEachQueuesMasterWithoutCrossSlot() {
        cluster.masterPorts().forEach(port -> {
            try (Jedis master = cluster.connectTo(port)) {
                master.scriptFlush();   // so that SCRIPT EXISTS below proves this test ran each script there
            }
        });

        List<String> parents = queuesOnEveryMaster();
        List<String> children = queuesOnEveryMaster();
        for (int i = 0; i < parents.size(); i++) {
            int nextMaster = masterOf(parents.get((i + 1) % parents.size()));
            runEveryFlowScript(parents.get(i), children.stream().filter(q -> masterOf(q) == nextMaster).findFirst().orElseThrow());
        }
        for (String queue : queuesOnEveryMaster()) {
            runEveryScript(queue);
            try (Jedis master = cluster.connectTo(masterOf(queue))) {
                String[] shas = Arrays.stream(Script.values()).map(s -> ScriptSource.load(s).sha1()).toArray(String[]::new);
                assertThat(master.scriptExists(shas)).as("every script ran on the master of queue %s", queue)
                        .hasSize(Script.values().length).containsOnly(true);
            }
        }
        cluster.masterPorts().forEach(port -> {
            try (Jedis master = cluster.connectTo(port)) {
                assertThat(master.info("errorstats")).as("node %d", port).doesNotContain("CROSSSLOT");
            }
        });
    }

    @Test
    void jobPagesAndJobStatesAreReadWholeFromEachQueuesMaster() {
        for (String queue : queuesOnEveryMaster()) {
            List<String> ids = client.submissions().enqueueBatch(queue, List.of(NewJob.of("a"), NewJob.of("b").inLane("other"), NewJob.of("c")))
                    .stream().map(Enqueued::id).toList();
            ClaimedJob running = client.leases().claim(queue, Duration.ofSeconds(30), 1, "w1").get(0);
            List<JobView> pending = client.reads().jobs(queue, JobState.PENDING, Optional.empty(), 10).jobs();
            assertThat(pending).extracting(JobView::id).as("queue %s", queue)
                    .containsExactlyInAnyOrderElementsOf(ids.stream().filter(id -> !id.equals(running.id())).toList());
            JobView other = pending.get(1);
            List<JobIdentity> asked = List.of(pending.get(0).identity(),
                    new JobIdentity(queue, running.id(), running.lease().jobCreatedMs(), null),
                    new JobIdentity(queue, other.id(), other.createdAt().toEpochMilli() + 1, null),   // another job that had this id
                    new JobIdentity(queue, "999999", 1, null));                                         // no such job

            Map<String, JobState> states = client.reads().statesOf(queue, asked);

            assertThat(states).as("queue %s", queue)
                    .containsOnly(Map.entry(pending.get(0).id(), JobState.PENDING), Map.entry(running.id(), JobState.ACTIVE));
        }
    }

    /** One call of every script, each in a state where it does its real work, not an early refusal. */
    private static void runEveryScript(String queue) {
        client.submissions().enqueue(queue, NewJob.of("a").withIdempotencyKey("k-1"));                               // enqueue
        client.submissions().enqueueBatch(queue, List.of(NewJob.of("b"), NewJob.of("c").inLane("other")));          // enqueue-batch
        List<ClaimedJob> claimed = client.leases().claim(queue, Duration.ofSeconds(30), 3, "w1");              // claim
        assertThat(claimed).hasSize(3);
        assertThat(client.leases().extend(claimed.get(0).lease(), Duration.ofSeconds(30)))                    // extend
                .isInstanceOf(LeaseExtension.Extended.class);
        assertThat(client.leases().complete(claimed.get(0).lease())).isInstanceOf(Settlement.Completed.class); // complete
        assertThat(client.leases().completeAndClaim(queue, List.of(claimed.get(2).lease()), Duration.ofSeconds(30), 1, "w1") // complete-claim
                .settlements()).singleElement().isInstanceOf(Settlement.Completed.class);
        assertThat(client.leases().retry(claimed.get(1).lease(), "boom", Backoff.NONE, FailureKind.PERMANENT))                  // retry -> dead
                .isNotInstanceOf(Rejected.class);
        assertThat(client.admin().requeue(queue, claimed.get(1).id())).isInstanceOf(ManualTransition.Moved.class); // requeue
        String delayed = client.submissions().enqueue(queue, NewJob.of("d").delayedBy(Duration.ofHours(1))).id();
        assertThat(client.admin().reschedule(queue, delayed, Duration.ofHours(2))).isInstanceOf(ManualTransition.Rescheduled.class); // reschedule
        assertThat(client.admin().cancel(queue, delayed)).isInstanceOf(ManualTransition.Moved.class);          // cancel
        client.submissions().enqueue(queue, NewJob.of("e"));
        ClaimedJob running = client.leases().claim(queue, Duration.ofSeconds(30), 1, "w1").get(0);
        assertThat(client.admin().cancel(queue, running.id())).isInstanceOf(ManualTransition.CancelRequested.class);
        assertThat(client.leases().stop(running.lease(), "stopped")).isInstanceOf(StopOutcome.Stopped.class);  // stop
        assertThat(client.admin().reconcile(queue, claimed.get(1).id(), claimed.get(1).lease().jobCreatedMs(), "seen")).isInstanceOf(ManualTransition.Moved.class); // reconcile
        assertThat(client.admin().remove(queue, claimed.get(0).id())).isInstanceOf(ManualTransition.Removed.class);          // remove
        // "e" has been pending all along; "h" gets one attempt: their lapsed leases take both ways out of reap.
        String lastAttempt = client.submissions().enqueue(queue, NewJob.of("h").withMaxAttempts(1)).id();
        List<ClaimedJob> lapsing = client.leases().claim(queue, Duration.ofMillis(100), 10, "w2");
        assertThat(lapsing).extracting(ClaimedJob::payload).containsExactly("e", "h");
        ServerClock.of(redis, queue).awaitPast(lapsing.get(1).leaseUntil());                         // on the clock of the queue's master
        ReapResult reaped = client.admin().reap(queue, 10);                                                    // reap
        assertThat(reaped.toPending()).as("leases reaped back to pending").isEqualTo(1);
        assertThat(reaped.toDead()).as("leases of a last attempt reaped to dead").isEqualTo(1);
        assertThat(reaped.jobIds()).containsExactlyInAnyOrder(lapsing.get(0).id(), lastAttempt);
        assertThat(client.reads().job(queue, lastAttempt).orElseThrow().state()).isEqualTo(JobState.DEAD);
        ClaimedJob again = client.leases().claim(queue, Duration.ofSeconds(30), 1, "w2").get(0);
        assertThat(again.id()).isEqualTo(lapsing.get(0).id());
        assertThat(again.attempt()).isEqualTo(2);
        client.leases().complete(again.lease());
        assertThat(client.admin().trim(queue, new Retention(0, Duration.ZERO, 0, Duration.ZERO, 100)))          // trim
                .isEqualTo(new TrimResult(queue, 3, 1, 1));
        for (String finished : List.of(claimed.get(1).id(), claimed.get(2).id(), running.id(), delayed, again.id(), lastAttempt)) {
            assertThat(client.reads().job(queue, finished)).as("finished job %s trimmed", finished).isEmpty();
        }
        assertThat(client.reads().stats(queue).total()).isZero();
        QueueLimits limits = QueueLimits.NONE.withLaneMaxActive(1).withRate(100, Duration.ofSeconds(1));
        assertThat(client.admin().setLimits(queue, limits)).isEqualTo(limits);                                // set-limits
        client.submissions().enqueueBatch(queue, List.of(NewJob.of("f").inLane("capped"), NewJob.of("g").inLane("capped")));
        assertThat(client.leases().claim(queue, Duration.ofSeconds(30), 2, "w3")).hasSize(1);                  // claim, holding a lane
        assertThat(client.reads().stats(queue).lanesHeld()).isEqualTo(1);
        client.admin().setLimits(queue, QueueLimits.NONE);
        assertThat(client.admin().setEventStream(queue, 1_000)).isPositive();                                  // set-events
        assertThat(client.reads().events(queue, "0", EventFilter.ALL, 10).events()).isNotEmpty();
        new ShardLayouts(redis, new ScriptRunner(redis, ReplicaWait.NONE)).record(ShardLayout.of(queue, 1));  // shard-layout (one shard: unchanged)
        QueueKeys keys = new QueueKeys(queue);
        assertThat(Replies.shardSettings(new ScriptRunner(redis, ReplicaWait.NONE).run(Script.SHARD_META, keys, null,    // shard-meta (shard 0's write)
                List.of(keys.prefix(), "write", "", "0", "", "", ""))).version()).isPositive();
        ScriptRunner keyHomes = new ScriptRunner(redis, ReplicaWait.NONE);
        keyHomes.run(Script.KEY_HOME_RESERVE, keys, "idem", List.of(keys.prefix(), "idem", "kh", "0", "", ""));      // key-home-reserve
        keyHomes.run(Script.KEY_HOME_CONFIRM, keys, "idem", List.of("kh", "0:1", "confirm", ""));                   // key-home-confirm
        keyHomes.run(Script.KEY_HOME_RELEASE, keys, "idem", List.of(keys.prefix(), "idem", "kh", "1", ""));          // key-home-release
        keyHomes.run(Script.KEY_HOME_FLOOR, keys, "", List.of(keys.prefix(), "0", "1", "idem", "kh"));               // key-home-floor
        keyHomes.run(Script.SCHEDULE_HOME, keys, "s", List.of("s", "0", "claim"));                                  // schedule-home
        assertThat(client.admin().pause(queue)).isTrue();                                                      // set-paused
        assertThat(client.reads().stats(queue).paused()).isTrue();                                             // stats
        assertThat(client.reads().jobs(queue, JobState.PENDING, Optional.empty(), 10).jobs()).isNotNull();
        ScheduleClient schedules = client.schedules();
        assertThat(schedules.put(Schedule.every(queue, "tick", Duration.ofMillis(10), "{}"), "api"))  // schedule-put
                .isEqualTo(ScheduleClient.PutResult.CREATED);
        assertThat(schedules.tick(queue).problems()).isEmpty();                                        // schedules-due, schedule-fire
        assertThat(schedules.pause(queue, "tick")).isTrue();                                           // schedule-set-paused
        assertThat(schedules.remove(queue, "tick")).isTrue();                                          // schedule-remove
        assertThat(client.admin().holdMaintenance(queue, "engine-1", Duration.ofSeconds(5)))           // maintenance-lease
                .isInstanceOf(MaintenanceLease.Held.class);
        assertThat(client.admin().releaseMaintenance(queue, "engine-1")).isTrue();
        Dedupe debounce = Dedupe.debounce("user:{42}", Duration.ofMinutes(1));                        // a key with braces of its own
        assertThat(client.submissions().enqueue(queue, NewJob.of("v1").withDedupe(debounce)).outcome()).isEqualTo(Enqueued.Outcome.CREATED);
        assertThat(client.submissions().enqueueBatch(queue, List.of(NewJob.of("v2").withDedupe(debounce),           // enqueue(-batch) with dedupe keys
                NewJob.of("t1").withDedupe(Dedupe.throttle("t", Duration.ofMinutes(1))),
                NewJob.of("t2").withDedupe(Dedupe.throttle("t", Duration.ofMinutes(1))))))
                .extracting(Enqueued::outcome)
                .containsExactly(Enqueued.Outcome.REPLACED, Enqueued.Outcome.CREATED, Enqueued.Outcome.THROTTLED);
    }

    /**
     * A flow whose parent is on one master and its children on another: each edge's script runs on
     * its own slot's master (flow-add and flow-notice-ack on the child's, flow-child-created,
     * flow-child-settled and flow-cancels-done on the parent's), and the parent is released.
     */
    private static void runEveryFlowScript(String parentQueue, String childQueue) {
        assertThat(masterOf(parentQueue)).isNotEqualTo(masterOf(childQueue));
        FlowSubmitted parent = client.flows().submit(NewFlow.of(parentQueue, NewJob.of("p"),                  // flow-add, flow-child-created
                NewFlow.of(childQueue, NewJob.of("c"))));
        ClaimedJob child = client.leases().claim(childQueue, Duration.ofSeconds(30), 1, "w1").get(0);
        client.leases().complete(child.lease());
        for (Flows.Notice notice : client.flows().notices(childQueue, 10)) {
            assertThat(client.flows().apply(notice).outcome()).isEqualTo("RELEASED");                     // flow-child-settled, flow-notice-ack
        }
        assertThat(client.reads().job(parentQueue, parent.id()).orElseThrow().state()).isEqualTo(JobState.PENDING);
        FlowSubmitted cancelled = client.flows().submit(NewFlow.of(parentQueue, NewJob.of("q"), NewFlow.of(childQueue, NewJob.of("d"))));
        client.admin().cancel(parentQueue, cancelled.id());
        for (Flows.ChildCancels cancels : client.flows().childCancels(parentQueue, 10)) {
            assertThat(client.flows().cancel(cancels)).isEqualTo(1);                                        // flow-cancels-done
        }
        assertThat(client.reads().stats(childQueue).cancelled()).isEqualTo(1);
    }

    private static List<String> queuesOnEveryMaster() {
        return cluster.hashTagsOnDistinctMasters("spread-" + ProcessHandle.current().pid() + "-" + System.nanoTime(), 3);
    }

    private static int masterOf(String queue) {
        return cluster.masterPortOf(JedisClusterCRC16.getSlot(new QueueKeys(queue).prefix()));
    }
}
