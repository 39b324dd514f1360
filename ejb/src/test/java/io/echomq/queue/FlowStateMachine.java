package io.echomq.queue;

import static io.echomq.testkit.property.Draw.weight;
import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.shard.QueueShards;
import io.echomq.testkit.property.Draw;
import io.echomq.testkit.property.SequenceProperty;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.UnifiedJedis;

/**
 * The flow properties (docs/ARCHITECTURE.md, F1-F5) as steps and checks for
 * {@link StateMachinePropertyTest}: flows over two queues (their own hash tags: on a cluster
 * often two masters), nested at times, whose jobs are completed, dead-lettered or cancelled; the
 * relay's two halves run apart (a crash between applying a notice and acknowledging it), the
 * cancels of a failed parent likewise, the submitter's marks are lost (a crash between making a
 * child and marking it) and repaired, and retention runs with no room at all. After every step:
 * <ul>
 *   <li>F1: a parent that left waiting for pending (or ran) holds every child's mark; a dead one
 *       every mark, or the mark of a fail-parent child that failed;</li>
 *   <li>F2: a waiting parent's count is exactly its number of marks, and its made count its
 *       number of children marked made (each moved once);</li>
 *   <li>F3: a finished child whose parent lacks its mark has a notice, and a child gone from
 *       Valkey has its parent's mark or a notice;</li>
 *   <li>waiting-children is one structure: the waiting set holds exactly the waiting parents.</li>
 * </ul>
 * and at the end, F5: driving the relay, the repair and the workers a bounded number of rounds
 * leaves no parent waiting. The two queues have one shard each, or N (docs/SHARDING.md 3.4: every
 * step through {@code QueueShards}, each job on its shard).
 */
final class FlowStateMachine implements SequenceProperty.Subject<FlowStateMachine.Step> {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Retention NO_ROOM = new Retention(0, Duration.ZERO, 0, Duration.ZERO, 100);
    /** Rounds of relay, repair and work after which no parent may still wait: one per level of nesting and then some. */
    private static final int DRAIN_ROUNDS = 12;

    /** Across the property's sequences, for its summary. */
    static final AtomicLong FLOWS = new AtomicLong();
    static final AtomicLong NOTICES_SENT_AGAIN = new AtomicLong();

    private final UnifiedJedis redis;
    /** The two queues' layouts: one shard each, or N (docs/SHARDING.md, 3.4). */
    private final QueueShards shards;
    private final Flows flows;
    private final List<String> queues;
    /** Every flow parent made, nested ones too: queue and id. */
    private final List<String[]> parents = new ArrayList<>();

    /** Flows over two queues of {@code shardCount} shards each. */
    FlowStateMachine(UnifiedJedis redis, QueueClient client, String base, int shardCount) {
        this.redis = redis;
        this.queues = List.of(base + "-p", base + "-c");
        this.shards = shardCount == 1 ? QueueShards.none(client)
                : QueueShards.connect(redis, client, ReplicaWait.NONE, Map.of(queues.get(0), shardCount, queues.get(1), shardCount));
        this.flows = shards.flows();
    }

    /** Up to {@code max} jobs of {@code queue} claimed, over its shards. */
    private List<ClaimedJob> claim(String queue, int max, String worker) {
        return shards.sharded(queue).map(q -> q.leases().claim(queue, LEASE, max, worker))
                .orElseGet(() -> shards.unsharded().leases().claim(queue, LEASE, max, worker));
    }

    /** A sequence: flow steps, then the drain that must release or end every parent. */
    static List<Step> scenario(Draw draw) {
        List<Step> steps = new ArrayList<>(draw.listOf(4, 25, FlowStateMachine::step));
        steps.add(new Drain());
        return steps;
    }

    static Step step(Draw draw) {
        return draw.weighted(weight(3, FlowStateMachine::submit), weight(6, d -> new Work(d.between(0, 1), d.pick(Ending.values()))),
                weight(1, d -> new Cancel(d.between(0, 40))), weight(2, d -> new ApplyOnly(d.between(0, 1))),
                weight(3, d -> new Relay(d.between(0, 1))), weight(1, d -> new CancelsOnly(d.between(0, 1))),
                weight(1, d -> new LoseMark(d.between(0, 20), d.between(0, 3))), weight(1, d -> new Repair()),
                weight(1, d -> new Trim()));
    }

    static Submit submit(Draw draw) {
        return new Submit(draw.listOf(1, 3, FlowStateMachine::child));
    }

    static Child child(Draw draw) {
        return new Child(draw.between(0, 1), draw.pick(ChildFailure.values()), draw.pick(0, 0, 0, 1, 2));
    }

    sealed interface Step permits Submit, Work, Cancel, ApplyOnly, Relay, CancelsOnly, LoseMark, Repair, Trim, Drain {
        void applyTo(FlowStateMachine run);
    }

    enum Ending { COMPLETE, COMPLETE_AGAIN, DIE, CANCEL }

    /** A child on queue {@code queue} (0 or 1) with its policy and {@code grandchildren} of its own (a nested flow). */
    record Child(int queue, ChildFailure policy, int grandchildren) {
    }

    record Submit(List<Child> children) implements Step {
        public void applyTo(FlowStateMachine run) {
            List<NewFlow> nodes = new ArrayList<>();
            for (Child c : children) {
                List<NewFlow> grand = new ArrayList<>();
                for (int g = 0; g < c.grandchildren(); g++) {
                    grand.add(NewFlow.of(run.queues.get(1 - c.queue()), NewJob.of("g")));
                }
                nodes.add(new NewFlow(run.queues.get(c.queue()), NewJob.of("c").withMaxAttempts(1), c.policy(), grand));
            }
            FlowSubmitted root = run.flows.submit(new NewFlow(run.queues.get(0), NewJob.of("p"), null, nodes));
            FLOWS.incrementAndGet();
            run.parents.add(new String[] {root.queue(), root.id()});
            for (FlowChild child : run.flows.children(root.queue(), root.id())) {
                String id = child.jobId().orElseThrow();
                if (JobState.WAITING_CHILDREN.equals(run.shards.readsOf(child.queue(), id).job(child.queue(), id).map(JobView::state).orElse(null))) {
                    run.parents.add(new String[] {child.queue(), id});
                }
            }
        }
    }

    /** A worker takes the next pending job of a queue (a child, or a released parent) and ends it. */
    record Work(int queue, Ending ending) implements Step {
        public void applyTo(FlowStateMachine run) {
            String q = run.queues.get(queue);
            List<ClaimedJob> claimed = run.claim(q, 1, "w");
            if (claimed.isEmpty()) {
                return;
            }
            Lease lease = claimed.get(0).lease();
            switch (ending) {
                case COMPLETE, COMPLETE_AGAIN -> run.shards.leases(q).complete(lease);
                case DIE -> run.shards.leases(q).retry(lease, "bad input", Backoff.NONE, FailureKind.PERMANENT);
                case CANCEL -> {
                    run.shards.adminOf(q, lease.jobId()).cancel(q, lease.jobId());
                    run.shards.leases(q).stop(lease, "stopped as asked");
                }
            }
        }
    }

    /** An operator cancels some job of the flows (a waiting parent, a pending child, or one already finished). */
    record Cancel(int pick) implements Step {
        public void applyTo(FlowStateMachine run) {
            String q = run.queues.get(pick % 2);
            List<String> ids = new ArrayList<>();
            for (JobState state : List.of(JobState.WAITING_CHILDREN, JobState.PENDING, JobState.COMPLETED)) {
                run.shards.jobs(q, state, Optional.empty(), 50).jobs().forEach(j -> ids.add(j.id()));
            }
            if (!ids.isEmpty()) {
                String id = ids.get(pick % ids.size());
                run.shards.adminOf(q, id).cancel(q, id);
            }
        }
    }

    /** The relay applies one notice to its parent and dies before acknowledging it. */
    record ApplyOnly(int queue) implements Step {
        public void applyTo(FlowStateMachine run) {
            run.flows.notices(run.queues.get(queue), 1).forEach(n -> run.flows.applyToParent(n));
        }
    }

    /** A full relay run over one queue: every notice applied and acknowledged, every listed child cancelled. */
    record Relay(int queue) implements Step {
        public void applyTo(FlowStateMachine run) {
            run.relay(run.queues.get(queue));
        }
    }

    /** The relay cancels a failed parent's children and dies before deleting the list. */
    record CancelsOnly(int queue) implements Step {
        public void applyTo(FlowStateMachine run) {
            run.flows.childCancels(run.queues.get(queue), 1).forEach(c -> run.flows.cancelListed(c));
        }
    }

    /** As if the submitter had died between making child {@code index} of a waiting parent and marking it made. */
    record LoseMark(int pick, int index) implements Step {
        public void applyTo(FlowStateMachine run) {
            if (run.parents.isEmpty()) {
                return;
            }
            String[] parent = run.parents.get(pick % run.parents.size());
            QueueKeys keys = run.flows.routes().keysOfJob(parent[0], parent[1]);
            if ("waiting-children".equals(run.redis.hget(keys.job(parent[1]), "state"))
                    && run.redis.hdel(keys.flow(parent[1]), "child:" + index) == 1) {
                run.redis.hincrBy(keys.job(parent[1]), "flow_created", -1);
            }
        }
    }

    /** The repair, with no grace: every waiting parent short of children gets them. */
    record Repair() implements Step {
        public void applyTo(FlowStateMachine run) {
            run.repair();
        }
    }

    record Trim() implements Step {
        public void applyTo(FlowStateMachine run) {
            run.queues.forEach(q -> run.shards.partsOf(q).forEach(shard -> shard.admin().trim(q, NO_ROOM)));
        }
    }

    /** The relay, the repair and the workers, round after round: no parent may be left waiting (F5). */
    record Drain() implements Step {
        public void applyTo(FlowStateMachine run) {
            for (int round = 0; round < DRAIN_ROUNDS && run.anyWaiting(); round++) {
                run.repair();
                run.queues.forEach(run::relay);
                for (String q : run.queues) {
                    List<ClaimedJob> claimed;
                    while (!(claimed = run.claim(q, 10, "drain")).isEmpty()) {
                        claimed.forEach(job -> run.shards.leases(q).complete(job.lease()));
                    }
                }
                run.queues.forEach(run::relay);
            }
            assertThat(run.anyWaiting()).as("F5: a parent still waits after %d rounds of relay, repair and work", DRAIN_ROUNDS).isFalse();
        }
    }

    private void relay(String queue) {
        for (Flows.Notice notice : flows.notices(queue, 100)) {
            if (flows.apply(notice).outcome().equals("ALREADY")) {
                NOTICES_SENT_AGAIN.incrementAndGet();
            }
        }
        flows.childCancels(queue, 100).forEach(flows::cancel);
    }

    private void repair() {
        for (String q : queues) {
            for (int shard = 0; shard < flows.shardCount(q); shard++) {
                for (Flows.WaitingParent parent : flows.parentsMissingChildren(q, shard, 0, Long.MAX_VALUE, 100).parents()) {
                    flows.makeMissingChildren(q, parent.id(), parent.createdMs());
                }
            }
        }
    }

    private boolean anyWaiting() {
        return queues.stream().anyMatch(q -> shards.stats(q).waitingChildren() > 0);
    }

    @Override
    public void apply(Step step) {
        step.applyTo(this);
        checkInvariants();
    }

    private void checkInvariants() {
        for (String q : queues) {
            for (QueueKeys keys : flows.routes().shardsOf(q)) {
                for (String id : redis.zrange(keys.waiting(), 0, -1)) {
                    assertThat(redis.hget(keys.job(id), "state")).as("%s/%s in the waiting set", q, id).isEqualTo("waiting-children");
                }
            }
        }
        for (String[] parent : parents) {
            checkParent(parent[0], parent[1]);
        }
    }

    private void checkParent(String queue, String id) {
        QueueKeys keys = flows.routes().keysOfJob(queue, id);
        Map<String, String> job = redis.hgetAll(keys.job(id));
        if (job.isEmpty()) {
            return;   // trimmed after it finished
        }
        Map<String, String> flow = redis.hgetAll(keys.flow(id));
        int expected = Integer.parseInt(job.get("flow_expected"));
        long marks = flow.keySet().stream().filter(k -> k.startsWith("settled:")).count();
        long made = flow.keySet().stream().filter(k -> k.startsWith("child:")).count();
        String state = job.get("state");
        String at = queue + "/" + id + " " + state + " " + flow;
        if (state.equals("waiting-children")) {
            assertThat(redis.zscore(keys.waiting(), id)).as("F1: waiting parent %s in the waiting set", at).isNotNull();
            assertThat(Long.parseLong(job.get("flow_settled"))).as("F2: count of %s", at).isEqualTo(marks);
            assertThat(Long.parseLong(job.get("flow_created"))).as("F2: made count of %s", at).isEqualTo(made);
            assertThat(marks).as("F1: %s waits with every mark", at).isLessThan(expected);
        } else if (List.of("pending", "active", "completed").contains(state)) {
            assertThat(marks).as("F1: %s left waiting with every child's mark", at).isEqualTo(expected);
        } else if (state.equals("dead")) {
            boolean failedByChild = false;
            for (int i = 0; i < expected; i++) {
                String mark = flow.get("settled:" + i);
                boolean failed = mark != null && (mark.equals("dead") || mark.equals("cancelled"));
                failedByChild |= failed && job.getOrDefault("last_error", "").startsWith("child " + i + " ");
            }
            assertThat(failedByChild || marks == expected).as("F1: dead %s failed by a fail-parent child or ran", at).isTrue();
        }
        for (int i = 0; i < expected; i++) {
            String ref = flow.get("child:" + i);
            if (ref == null || flow.containsKey("settled:" + i)) {
                continue;
            }
            String[] child = ref.split(" ");
            QueueKeys childKeys = flows.routes().keysOfJob(child[0], child[1]);
            String childState = redis.hget(childKeys.job(child[1]), "state");
            boolean noticed = redis.hexists(childKeys.notices(), child[1]);
            if (childState == null) {
                assertThat(noticed).as("F3: child %d (%s) of %s is gone without its parent's mark or a notice", i, ref, at).isTrue();
            } else if (JobState.fromWireName(childState).isFinished()) {
                assertThat(noticed).as("F3: finished child %d (%s, %s) of %s has a notice", i, ref, childState, at).isTrue();
            }
        }
    }
}
