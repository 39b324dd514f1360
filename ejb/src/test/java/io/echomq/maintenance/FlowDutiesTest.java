package io.echomq.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.FlowChild;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.JobState;
import io.echomq.queue.NewFlow;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The flow duties as maintenance runs them: the relay carries a child's settlement to its parent
 * on another queue, and the repair makes a lost child once its parent is past the grace, walking
 * every waiting parent a page at a time.
 */
@WithRealServices
class FlowDutiesTest {

    private RedisClient redis;
    private QueueClient client;
    private String parents;
    private String children;

    @BeforeEach
    void connect(ValkeyService valkey) {
        redis = valkey.newClient();
        client = QueueClient.connect(redis, QueueSettings.DEFAULT);
        parents = "flowduty-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        children = parents + "-kids";
    }

    @AfterEach
    void close() {
        redis.close();
    }

    /** A waiting parent whose one child the submitter lost before making it (its job and mark gone). */
    private FlowSubmitted parentWithALostChild() {
        FlowSubmitted parent = client.flows().submit(NewFlow.of(parents, NewJob.of("p"), NewFlow.of(children, NewJob.of("c"))));
        String lost = client.flows().children(parents, parent.id()).get(0).jobId().orElseThrow();
        QueueKeys kids = new QueueKeys(children);
        redis.del(kids.job(lost));
        redis.zrem(kids.pending("default"), lost);
        redis.lrem(kids.ring(), 0, "default");   // the lane's only job: the ring holds a lane only while it has work
        redis.hdel(kids.idempotency(), "flow:" + parents + ":" + parent.id() + ":" + parent.createdMs() + ":0");
        redis.hdel(new QueueKeys(parents).flow(parent.id()), "child:0");
        redis.hset(new QueueKeys(parents).job(parent.id()), "flow_created", "0");
        return parent;
    }

    private static Clock at(long ms) {
        return Clock.fixed(Instant.ofEpochMilli(ms), ZoneOffset.UTC);
    }

    @Test
    void oneRelayRunCarriesABacklogOfSettledChildrenLargerThanItsBatch() {
        FlowSubmitted parent = client.flows().submit(NewFlow.of(parents, NewJob.of("p"),
                java.util.stream.IntStream.range(0, 25).mapToObj(i -> NewFlow.of(children, NewJob.of("c" + i))).toArray(NewFlow[]::new)));
        for (ClaimedJob child : client.leases().claim(children, Duration.ofSeconds(30), 25, "w")) {
            client.leases().complete(child.lease());
        }
        FlowRelay relay = new FlowRelay(client.flows(), Duration.ofSeconds(30), 10);

        assertThat(relay.runOnce(children).flowEdges()).as("edges carried by one run in batches of 10").isEqualTo(25);
        assertThat(client.reads().job(parents, parent.id()).orElseThrow().state()).isEqualTo(JobState.PENDING);
    }

    @Test
    void theRepairMakesALostChildOnlyOnceItsParentIsPastTheGraceAndWalksEveryParent() {
        FlowSubmitted first = parentWithALostChild();
        FlowSubmitted second = parentWithALostChild();
        Duration grace = Duration.ofSeconds(10);

        FlowRepair early = new FlowRepair(client.flows(), Duration.ofSeconds(1), grace, 1, at(second.createdMs() + 5_000));
        assertThat(early.runOnce(parents).flowEdges()).as("within the grace the submitter may still be at work").isZero();

        FlowRepair late = new FlowRepair(client.flows(), Duration.ofSeconds(1), grace, 1, at(second.createdMs() + 10_001));
        assertThat(late.runOnce(parents).flowEdges()).as("one parent per page").isEqualTo(1);
        assertThat(late.runOnce(parents).flowEdges()).as("the walk goes on to the next parent").isEqualTo(1);
        assertThat(late.runOnce(parents).flowEdges()).as("and starts over with nothing left").isZero();

        for (FlowSubmitted parent : List.of(first, second)) {
            assertThat(client.flows().children(parents, parent.id())).extracting(FlowChild::jobId).allMatch(id -> id.isPresent());
        }
        assertThat(client.reads().stats(children).pending()).isEqualTo(2);
    }

    @Test
    void theRelayCarriesAChildsSettlementToItsParentOnAnotherQueue() {
        FlowSubmitted parent = client.flows().submit(NewFlow.of(parents, NewJob.of("p"), NewFlow.of(children, NewJob.of("c"))));
        ClaimedJob child = client.leases().claim(children, Duration.ofSeconds(30), 1, "w").get(0);
        client.leases().complete(child.lease());
        FlowRelay relay = new FlowRelay(client.flows(), Duration.ofSeconds(1), 100);

        assertThat(relay.runOnce(parents).flowEdges()).as("the notice lives on the child's queue").isZero();
        assertThat(relay.runOnce(children).flowEdges()).isEqualTo(1);
        assertThat(client.reads().job(parents, parent.id()).orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(relay.runOnce(children).flowEdges()).as("acknowledged: nothing is sent again").isZero();
    }
}
