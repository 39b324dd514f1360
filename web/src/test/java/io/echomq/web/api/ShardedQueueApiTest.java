package io.echomq.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.Enqueued;
import io.echomq.queue.EventFilter;
import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.shard.QueueShards;
import io.echomq.queue.shard.ShardLayout;
import io.echomq.runtime.ConfigReader;
import io.echomq.runtime.EchoMqEngine;
import io.echomq.runtime.EngineConfig;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.services.ValkeyCluster;
import io.echomq.web.metrics.QueueMetrics;
import jakarta.json.JsonValue;
import jakarta.ws.rs.core.HttpHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * A queue of three shards on the 3-master cluster answers the API as one queue: its job list by
 * state, its job-event stream, its limits, its schedules and its flows (docs/SHARDING.md, 3.3, 3.4,
 * 8 and 10), through the resources an HTTP call reaches.
 */
class ShardedQueueApiTest {

    private final ValkeyCluster cluster = RealServices.valkeyCluster();
    private final RedisClusterClient redis = cluster.newClient();
    private final String queue = "sharded-api-" + UUID.randomUUID();
    private QueueShards shards;
    private ShardLayout layout;
    private EchoMqEngine engine;

    @BeforeEach
    void connect() {
        shards = QueueShards.connect(redis, QueueClient.connect(redis, QueueSettings.DEFAULT), ReplicaWait.NONE, Map.of(queue, 3));
        layout = shards.sharded(queue).orElseThrow().layout();
        engine = new EngineOf(shards, queue);
    }

    @AfterEach
    void closeClient() {
        redis.close();
    }

    @Test
    void theJobListWalksEveryShardsJobsOnceInPagesOfOneQueue() {
        List<String> submitted = IntStream.range(0, 12).mapToObj(i -> shards.enqueue(queue, NewJob.of("{}").inLane("lane-" + i)).id())
                .toList();
        JobsResource jobs = jobs();

        List<String> listed = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            Views.JobList page = jobs.list("pending", cursor, 5);
            page.jobs().forEach(job -> listed.add(job.id()));
            cursor = page.next();
            pages++;
        } while (cursor != null);

        assertThat(submitted.stream().map(layout::shardOfJob).distinct().count()).as("shards holding the jobs").isEqualTo(3);
        assertThat(listed).as("pending jobs, page after page").containsExactlyInAnyOrderElementsOf(submitted).doesNotHaveDuplicates();
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void limitsAreReadAndSetAsTheQueuesWholeLimitsWhileEachShardEnforcesItsPart() {
        QueuesResource queues = queues();

        LimitsBody set = queues.setLimits(queue, new LimitsBody(7, new LimitsBody.RateBody(10, 1_000), 2, null));

        assertThat(set.maxActive()).isEqualTo(7);
        assertThat(queues.limits(queue)).isEqualTo(new LimitsBody(7, new LimitsBody.RateBody(10, 1_000), 2, null));
        assertThat(queues.one(queue).limits().maxActive()).as("the queue's view").isEqualTo(7);
        assertThat(queues.one(queue).limitsSource()).isEqualTo("api");
        assertThat(queues.one(queue).shards()).as("the queue's view says its shards").isEqualTo(3);
        assertThat(shards.partsOf(queue).stream().map(shard -> shard.reads().limits(queue).maxActive().orElseThrow()).toList())
                .as("each shard's part").containsExactly(3, 2, 2);
        assertThatThrownBy(() -> queues.setLimits(queue, new LimitsBody(2, null, null, null)))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("maxActive"));
    }

    @Test
    void theEventStreamGivesEveryShardsEventsAndResumesAfterAnyOfThemWithoutLossOrRepeat() {
        List<String> submitted = IntStream.range(0, 9).mapToObj(i -> shards.enqueue(queue, NewJob.of("{}").inLane("lane-" + i)).id())
                .toList();
        QueueEventsResource.StreamedPage all = QueueEventsResource.read(shards, queue,
                QueueEventsResource.startingPoint(shards, queue, "0", null), EventFilter.ALL);

        assertThat(all.events().stream().map(QueueEvent::jobId).toList()).containsExactlyInAnyOrderElementsOf(submitted);
        assertThat(all.ids()).allSatisfy(id -> assertThat(id.split(",")).as("a resume point of every shard").hasSize(3));
        for (int k = 0; k < all.events().size(); k++) {
            String resumedAt = QueueEventsResource.startingPoint(shards, queue, null, all.ids().get(k));
            List<QueueEvent> rest = QueueEventsResource.read(shards, queue, resumedAt, EventFilter.ALL).events();
            assertThat(rest).as("resumed after event " + k).containsExactlyElementsOf(all.events().subList(k + 1, all.events().size()));
        }
        Set<String> fromNow = new HashSet<>();
        String now = QueueEventsResource.startingPoint(shards, queue, null, null);
        String later = shards.enqueue(queue, NewJob.of("{}").inLane("lane-later")).id();
        QueueEventsResource.read(shards, queue, now, EventFilter.ALL).events().forEach(e -> fromNow.add(e.jobId()));
        assertThat(fromNow).containsExactly(later);
        assertThatThrownBy(() -> QueueEventsResource.startingPoint(shards, queue, null, "1-0,2-0"))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo(HttpHeaders.LAST_EVENT_ID_HEADER));
    }

    @Test
    void aJobOfANamedLaneWhoseKeyAnotherShardOwnsIsMadeOnceAndItsKeyAnswersItFromAnotherLane() {
        int shardOfLane = layout.shardOfLane("lane-a");
        String key = IntStream.range(0, 100).mapToObj(i -> "order-" + i).filter(k -> layout.ownerOfKey(k) != shardOfLane)
                .findFirst().orElseThrow();
        String otherLane = IntStream.range(0, 100).mapToObj(i -> "lane-" + i).filter(l -> layout.shardOfLane(l) != shardOfLane)
                .findFirst().orElseThrow();

        Enqueued first = shards.enqueue(queue, new JobBody(JsonValue.EMPTY_JSON_OBJECT, "lane-a", null, null, null, null, null, null)
                .toNewJob(Optional.of(key)));
        Enqueued again = shards.enqueue(queue, new JobBody(JsonValue.EMPTY_JSON_OBJECT, otherLane, null, null, null, null, null, null)
                .toNewJob(Optional.of(key)));

        assertThat(first.created()).as("the first submission makes the job").isTrue();
        assertThat(again.created()).as("the key's second submission, from a lane of another shard").isFalse();
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(shards.stats(queue).total()).as("jobs made over the shards").isEqualTo(1);
    }

    /**
     * The body a POST to {@code /api/flows} takes, submitted as {@link FlowsResource#submit} submits it (the
     * {@code Response} it then builds needs a JAX-RS runtime), and read back by {@code GET /api/flows/{queue}/{id}}.
     */
    @Test
    void aFlowWithItsParentAndChildrenOnLanesOfDifferentShardsIsMadeOnEachLanesShardAndReadAsOneFlow() {
        String oneShard = "one-shard-" + UUID.randomUUID();
        FlowsResource flows = new FlowsResource();
        flows.engine = new EngineOf(shards, queue, oneShard);
        flows.metrics = new QueueMetrics();
        List<FlowBody> children = new ArrayList<>();
        for (int shard = 0; shard < 3; shard++) {
            children.add(new FlowBody(queue, JsonValue.EMPTY_JSON_OBJECT, laneOn(shard), null, null, null, null, List.of()));
        }
        children.add(new FlowBody(oneShard, JsonValue.EMPTY_JSON_OBJECT, null, null, null, null, null, List.of()));
        FlowBody parent = new FlowBody(queue, JsonValue.EMPTY_JSON_OBJECT, laneOn(2), null, null, null, null, children);

        String id = flows.engine.shards().submitFlow(parent.toNewFlow(Optional.empty())).id();
        Views.FlowView view = flows.children(queue, id);

        assertThat(layout.shardOfJob(id)).as("the parent on its lane's shard").isEqualTo(2);
        assertThat(view.state()).isEqualTo("waiting-children");
        assertThat(view.children()).hasSize(4).allSatisfy(child -> assertThat(child.state()).isEqualTo("pending"));
        for (int shard = 0; shard < 3; shard++) {
            assertThat(layout.shardOfJob(view.children().get(shard).id())).as("child %d on its lane's shard", shard).isEqualTo(shard);
        }
        assertThat(view.children().get(3).queue()).isEqualTo(oneShard);
        assertThat(view.tree().children()).as("the tree, each job read on its shard").hasSize(4)
                .allSatisfy(node -> assertThat(node.state()).isEqualTo("pending"));
        assertThat(shards.stats(queue).total()).as("jobs of the sharded queue").isEqualTo(4);
    }

    /** A lane of the sharded queue on {@code shard}. */
    private String laneOn(int shard) {
        return IntStream.range(0, 1_000).mapToObj(i -> "lane-" + i).filter(l -> layout.shardOfLane(l) == shard).findFirst().orElseThrow();
    }

    @Test
    void theShardsOfAQueueShowWhereEachLivesOnItsOwnMasterWithCountsThatAddUpToTheQueues() {
        QueuesResource queues = queues();
        queues.setLimits(queue, new LimitsBody(7, null, null, null));
        for (int i = 0; i < 12; i++) {
            shards.enqueue(queue, NewJob.of("{}").inLane("lane-" + i));
        }
        shards.enqueue(queue, NewJob.of("{}").delayedBy(java.time.Duration.ofHours(1)));

        Views.QueueShardsView view = queues.shards(queue);

        assertThat(view.queue()).isEqualTo(queue);
        assertThat(view.shards()).extracting(Views.ShardRow::shard).containsExactly(0, 1, 2);
        for (Views.ShardRow row : view.shards()) {
            assertThat(row.tag()).as("shard " + row.shard() + "'s tag").isEqualTo(layout.keys(row.shard()).hashTag());
            assertThat(row.slot()).as("shard " + row.shard() + "'s slot").isEqualTo(layout.keys(row.shard()).slot());
            assertThat(row.master()).as("shard " + row.shard() + "'s master, as the cluster reports it")
                    .isEqualTo("127.0.0.1:" + cluster.masterPortOf(row.slot()));
        }
        assertThat(view.shards()).extracting(Views.ShardRow::master).as("three masters").doesNotHaveDuplicates();
        Views.QueueView whole = queues.one(queue);
        for (String state : whole.counts().keySet()) {
            assertThat(view.shards().stream().mapToLong(row -> row.counts().get(state)).sum()).as(state + " over the shards")
                    .isEqualTo(whole.counts().get(state));
        }
        assertThat(whole.total()).isEqualTo(13);
        assertThat(view.shards()).extracting(row -> row.limits().maxActive()).as("each shard's part of the cap").containsExactly(3, 2, 2);
        assertThat(view.shards()).extracting(Views.ShardRow::settingsBehind).containsOnly(false);
        assertThat(view.shards()).extracting(Views.ShardRow::settingsVersion).doesNotContainNull().containsOnly(view.shards().get(0).settingsVersion());
        assertThat(view.shards()).extracting(Views.ShardRow::paused).containsOnly(false);

        queues.pause(queue);
        assertThat(queues.shards(queue).shards()).extracting(Views.ShardRow::paused).as("paused, shard by shard").containsExactly(true, true, true);
    }

    @Test
    void aQueueOfOneShardShowsOneRowOnTheMasterServingItsSlot() {
        String oneShard = "one-shard-" + UUID.randomUUID();
        QueuesResource queues = queues();
        queues.engine = new EngineOf(shards, queue, oneShard);
        shards.enqueue(oneShard, NewJob.of("{}"));

        List<Views.ShardRow> rows = queues.shards(oneShard).shards();

        assertThat(rows).hasSize(1);
        Views.ShardRow only = rows.get(0);
        assertThat(only.shard()).isZero();
        assertThat(only.tag()).isEqualTo(oneShard);
        assertThat(only.master()).isEqualTo("127.0.0.1:" + cluster.masterPortOf(only.slot()));
        assertThat(only.counts().get("pending")).isEqualTo(1);
        assertThat(only.settingsVersion()).as("a queue of one shard copies no settings").isNull();
        assertThat(only.settingsBehind()).isFalse();
    }

    @Test
    void schedulesOfAThreeShardQueueAreDefinedReadPausedResumedAndRemovedAsOnOneShardEachFiringOnceASlotOnItsLanesShard() {
        String laneOn1 = laneOn(1);
        String laneOn2 = laneOn(2);
        SchedulesResource api = schedules();

        assertThat(api.define(queue, "on-1", every(50, laneOn1)).created()).as("PUT on-1: 201").isTrue();
        assertThat(api.define(queue, "on-2", every(50, laneOn2)).created()).as("PUT on-2: 201").isTrue();
        assertThat(api.define(queue, "laneless", every(50, null)).created()).as("PUT laneless: 201").isTrue();
        assertThat(api.define(queue, "on-1", every(50, laneOn1)).created()).as("the same PUT again: 200").isFalse();
        SchedulesResource.Defined replaced = api.define(queue, "on-2", every(60, laneOn2));
        assertThat(replaced.created()).as("a changed PUT: 200").isFalse();
        assertThat(replaced.now().intervalMs()).isEqualTo(60L);
        assertThat(redis.exists(layout.keys(1).schedule("on-1"))).as("on-1 on its lane's shard").isTrue();
        assertThat(redis.exists(layout.keys(2).schedule("on-2"))).as("on-2 on its lane's shard").isTrue();
        assertThat(redis.exists(layout.keys(0).schedule("laneless"))).as("a schedule of the default lane on shard 0").isTrue();
        assertThat(api.list(queue)).extracting(ScheduleViews.ScheduleBody::name).containsExactly("laneless", "on-1", "on-2");
        assertThat(api.define(queue, "on-2", every(60, laneOn1)).created()).as("a lane of another shard moves it: 200").isFalse();
        assertThat(redis.hexists(layout.keys(1).schedule("on-2"), "version")).as("on-2 moved to shard 1").isTrue();
        assertThat(redis.hexists(layout.keys(2).schedule("on-2"), "version")).as("and gone from shard 2").isFalse();
        assertThat(api.one(queue, "on-2").lane()).isEqualTo(laneOn1);
        assertThat(api.define(queue, "on-2", every(60, laneOn2)).created()).as("and back: 200").isFalse();
        assertThat(api.list(queue)).extracting(ScheduleViews.ScheduleBody::name).containsExactly("laneless", "on-1", "on-2");

        Awaitility.await("every schedule fired twice").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    shards.schedules(queue).tick(queue);
                    return api.list(queue).stream().allMatch(schedule -> schedule.fired() >= 2);
                });
        ScheduleViews.ScheduleBody on2 = api.one(queue, "on-2");
        assertThat(on2.lastJob()).as("on-2's last job").isNotNull();
        assertThat(on2.lastJobState()).as("the last job's state, read on its shard").isEqualTo("pending");

        assertThat(api.pause(queue, "on-2").paused()).as("POST pause: 200, paused").isTrue();
        assertThat(api.one(queue, "on-2").paused()).isTrue();
        long firedWhilePaused = api.one(queue, "on-2").fired();
        shards.schedules(queue).tick(queue);
        assertThat(api.one(queue, "on-2").fired()).as("a paused schedule fires nothing").isEqualTo(firedWhilePaused);
        assertThat(api.resume(queue, "on-2").paused()).as("POST resume: 200, running").isFalse();

        Map<String, List<JobView>> madeBy = new HashMap<>();
        shards.jobs(queue, JobState.PENDING, Optional.empty(), 500).jobs().forEach(job -> madeBy
                .computeIfAbsent(job.idempotencyKey().orElseThrow().split(":")[1], name -> new ArrayList<>()).add(job));
        for (ScheduleViews.ScheduleBody schedule : api.list(queue)) {
            List<JobView> made = madeBy.getOrDefault(schedule.name(), List.of());
            assertThat(made).as("%s's jobs: one per slot fired", schedule.name()).hasSize((int) schedule.fired())
                    .extracting(job -> job.idempotencyKey().orElseThrow()).doesNotHaveDuplicates();
            if (!schedule.lane().equals(NewJob.DEFAULT_LANE)) {
                assertThat(made).as("%s's jobs on its lane's shard", schedule.name())
                        .allSatisfy(job -> assertThat(layout.shardOfJob(job.id())).isEqualTo(layout.shardOfLane(schedule.lane())));
            }
        }
        assertThat(madeBy.get("laneless")).as("the default lane's jobs, on shard 0").isNotEmpty()
                .allSatisfy(job -> assertThat(layout.shardOfJob(job.id())).isZero());

        assertThat(api.remove(queue, "on-2").name()).as("DELETE: 200 with the schedule as it was").isEqualTo("on-2");
        // The hash keeps only the remove's fence, for an hour (docs/SHARDING.md 3.3).
        assertThat(redis.hkeys(layout.keys(2).schedule("on-2"))).as("removed from its shard").containsOnly("fence");
        assertThat(redis.zscore(layout.keys(2).schedules(), "on-2")).isNull();
        assertThat(shards.schedules(queue).get(queue, "on-2")).as("GET after DELETE: 404").isEmpty();
        assertThat(shards.schedules(queue).remove(queue, "on-2")).as("DELETE again: 404").isFalse();
        assertThat(shards.schedules(queue).pause(queue, "on-2")).as("pause of none: 404").isFalse();
        assertThat(shards.schedules(queue).resume(queue, "on-2")).as("resume of none: 404").isFalse();
        assertThat(api.define(queue, "on-2", every(60, laneOn1)).created()).as("removed, its name may go to another shard: 201").isTrue();
        assertThat(redis.exists(layout.keys(1).schedule("on-2"))).isTrue();
    }

    private static ScheduleRequest every(long intervalMs, String lane) {
        return new ScheduleRequest(null, null, null, null, intervalMs, null, lane, null, null, null, null);
    }

    private SchedulesResource schedules() {
        SchedulesResource schedules = new SchedulesResource();
        schedules.engine = engine;
        return schedules;
    }

    private JobsResource jobs() {
        JobsResource jobs = new JobsResource();
        jobs.engine = engine;
        jobs.metrics = new QueueMetrics();
        jobs.queue = queue;
        return jobs;
    }

    private QueuesResource queues() {
        QueuesResource queues = new QueuesResource();
        queues.engine = engine;
        queues.metrics = new QueueMetrics();
        return queues;
    }

    /** The deployment's engine as the resources see it, serving the sharded queue (and any other named). */
    private static final class EngineOf extends EchoMqEngine {
        private final QueueShards shards;
        private final Set<String> queues;
        /** What the resources read of the configuration: the maintenance interval a schedule's misfire grace must exceed. */
        private final EngineConfig config = EngineConfig.withoutOwnDatabase(ConfigReader.environment(Map.of(
                "echomq.valkey.url", "redis://127.0.0.1:6379", "echomq.maintenance.interval-ms", "100")));

        EngineOf(QueueShards shards, String... queues) {
            this.shards = shards;
            this.queues = Set.of(queues);
        }

        @Override
        public QueueShards shards() {
            return shards;
        }

        @Override
        public QueueClient queue() {
            return shards.unsharded();
        }

        @Override
        public Set<String> queues() {
            return queues;
        }

        @Override
        public EngineConfig config() {
            return config;
        }
    }
}
