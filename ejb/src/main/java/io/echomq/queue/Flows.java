package io.echomq.queue;

import static io.echomq.queue.internal.ValkeyCommands.read;

import io.echomq.queue.FlowRoutes.Place;
import io.echomq.queue.internal.FlowSpec;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Flows: a parent job that waits ({@code waiting-children}) until each of its children settled,
 * the children possibly on other queues (on a cluster, other masters) and themselves parents.
 * Every edge between a parent and a child is a keyed, idempotent step on one slot, and every step
 * that crosses slots is a durable record that is sent again until acknowledged
 * (docs/ARCHITECTURE.md, F1-F6):
 * <ul>
 *   <li>making: {@code flow-add} stores the parent with its children's specs; each child is made
 *   with an idempotency key derived from the parent and its index ({@link #makeMissingChildren},
 *   by the submitter at once and by the flow repair later), then marked made on the parent;</li>
 *   <li>settling: a child's settlement writes a notice on its own slot; the flow relay applies it
 *   to the parent ({@link #apply}: a set-once mark) and then deletes it;</li>
 *   <li>failing: a parent that fails or is cancelled lists its unsettled children, which the relay
 *   cancels ({@link #cancel}).</li>
 * </ul>
 * Each step goes to the slot its {@link FlowRoutes} names: a queue of one shard has one, a sharded
 * queue's job is on the shard of its lane or id (docs/SHARDING.md, 3.4). Thread-safe; obtained from
 * {@link QueueClient#flows()} (one client's keys) or {@code QueueShards.flows()} (every queue by its layout).
 */
public final class Flows {

    /** The most children one parent may wait for. */
    public static final int MAX_CHILDREN = 1_000;
    /** The deepest a flow may nest (the root is level 1). */
    public static final int MAX_DEPTH = 8;

    private final UnifiedJedis redis;
    private final ScriptRunner scripts;
    private final QueueSettings settings;
    /** Which shard each step goes to: one client's keys, or every queue laid out over its shards. */
    private final FlowRoutes routes;
    /** The rule of the root's idempotency key: a submitter's, or the outbox's ({@link OutboxDoor}). */
    private final UnaryOperator<String> rootKeyRule;

    Flows(UnifiedJedis redis, ScriptRunner scripts, QueueSettings settings, FlowRoutes routes) {
        this(redis, scripts, settings, routes, RequestChecks::idempotencyKey);
    }

    private Flows(UnifiedJedis redis, ScriptRunner scripts, QueueSettings settings, FlowRoutes routes, UnaryOperator<String> rootKeyRule) {
        this.redis = redis;
        this.scripts = scripts;
        this.settings = settings;
        this.routes = routes;
        this.rootKeyRule = rootKeyRule;
    }

    /** These flows with a root keyed as the outbox keys the rows it relays: for {@link OutboxDoor} only. */
    Flows outboxDoor() {
        return new Flows(redis, scripts, settings, routes, RequestChecks::outboxIdempotencyKey);
    }

    /** These flows with every step sent where {@code routes} says: for {@code QueueShards}, which lays queues out over shards. */
    public Flows routedBy(FlowRoutes routes) {
        return new Flows(redis, scripts, settings, routes, rootKeyRule);
    }

    /** The outbox's flows ({@link #outboxDoor()}) routed by {@code routes}: for {@code QueueShards}' outbox door. */
    public Flows outboxDoorRoutedBy(FlowRoutes routes) {
        return routedBy(routes).outboxDoor();
    }

    /** Where these flows send each step (the fallback of routes that lay some queues out over shards). */
    public FlowRoutes routes() {
        return routes;
    }

    /**
     * Submits a flow: checks every node first (a field error names the node, e.g.
     * {@code children[2].children[0].payload}), stores the root with its children's specs, then
     * makes the children. With an idempotency key on the root the whole submission may be sent
     * again (after a lost reply or a crash): it answers the first root and makes only the children
     * still missing. Without one a lost reply is a {@link QueueOutcomeUnknownException}.
     */
    public FlowSubmitted submit(NewFlow flow) {
        Checked root = checked(flow);
        FlowSubmitted submitted = routes.makeRoot(root.queue(), root.lane(), root.key(), claim -> add(root.place(), root.queue(),
                root.payload(), root.maxAttempts(), root.lane(), root.priority(), root.key(), "", "", root.children(), claim));
        if (submitted.state() == JobState.WAITING_CHILDREN) {
            makeMissingChildren(submitted.queue(), submitted.id(), submitted.createdMs());
        }
        return submitted;
    }

    /**
     * Checks a flow exactly as {@link #submit} would (fields named as there), and sends nothing:
     * for callers that store a flow first and submit it later (the resource adapter's outbox).
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public void check(NewFlow flow) {
        checked(flow);
    }

    /** A flow's root as {@link #submit} sends it, every field checked; {@code children}: the children's specs. */
    private record Checked(Place place, String queue, String payload, int maxAttempts, String lane, int priority, String key,
            List<String> children) {
    }

    private Checked checked(NewFlow flow) {
        if (flow == null) {
            throw new InvalidRequestException("flow", "is required");
        }
        if (!flow.isParent()) {
            throw new InvalidRequestException("children", "must hold 1 to " + MAX_CHILDREN + " jobs, held 0");
        }
        List<String> children = childSpecs(flow, "", 1);
        NewJob root = flow.job();
        if (root == null) {
            throw new InvalidRequestException("job", "is required");
        }
        refuseTiming(root, "");
        String key = root.idempotencyKey().map(rootKeyRule).orElse("");
        String queue = RequestChecks.queueName(flow.queue());
        String lane = lane(root, "");
        return new Checked(routes.placeNew(queue, lane, key), queue, payload(root, ""), maxAttempts(root, ""), lane, priority(root, ""), key,
                children);
    }

    /**
     * Makes each child of a waiting parent that is neither marked made nor settled, from the spec
     * the parent holds, and marks it made (F4); a child that is itself a parent gets its own
     * children first. Safe to run any number of times, from any process: each child's key is
     * derived from its parent and index, so a child made before is found, not made again.
     *
     * @return how many children were made or found and marked
     */
    public int makeMissingChildren(String queue, String parentId, long parentCreatedMs) {
        QueueKeys keys = routes.keysOfJob(queue, parentId);
        Map<String, String> flow = read(() -> redis.hgetAll(keys.flow(parentId)));
        int marked = 0;
        for (int i = 0; flow.containsKey("spec:" + i); i++) {
            if (!flow.containsKey("child:" + i) && !flow.containsKey("settled:" + i)) {
                makeChild(keys, parentId, parentCreatedMs, i, FlowSpec.decode(flow.get("spec:" + i)));
                marked++;
            }
        }
        return marked;
    }

    private void makeChild(QueueKeys parent, String parentId, long parentCreatedMs, int index, FlowSpec spec) {
        String parentRef = parent.queue() + " " + parentId + " " + parentCreatedMs;
        String key = childKey(parent.queue(), parentId, parentCreatedMs, index);
        FlowSubmitted child = add(routes.placeNew(spec.queue(), spec.lane(), key), spec.queue(), spec.payload(), spec.maxAttempts(),
                spec.lane(), spec.priority(), key, parentRef + " " + index, spec.policy().wireName(), spec.children(), "");
        if (child.state() == JobState.WAITING_CHILDREN) {
            makeMissingChildren(child.queue(), child.id(), child.createdMs());
        }
        Optional<JobState> parentNow = Replies.flowChildMarked(scripts.run(Script.FLOW_CHILD_CREATED, parent, parentId,
                List.of(Long.toString(parentCreatedMs), Integer.toString(index), child.queue() + " " + child.id() + " " + child.createdMs())));
        if (parentNow.filter(state -> state == JobState.WAITING_CHILDREN).isEmpty()) {
            // The parent failed or was cancelled before this child was marked, so its list of children to cancel missed it.
            routes.adminOf(child.queue(), child.id()).cancel(child.queue(), child.id());
        }
    }

    /**
     * The idempotency key of a parent's child {@code index}: {@code flow:<queue>:<id>:<created>:<index>}.
     * It names the parent, so the child is made once however often it is made, and its effect row
     * names its parent too ({@link #parentOfChildKey}).
     */
    public static String childKey(String parentQueue, String parentId, long parentCreatedMs, int index) {
        return RequestChecks.FLOW_KEY_PREFIX + parentQueue + ":" + parentId + ":" + parentCreatedMs + ":" + index;
    }

    /**
     * The parent a {@link #childKey} names; empty for any other key (or none). Read from the right,
     * as the id, creation time and index hold no colon.
     */
    public static Optional<JobIdentity> parentOfChildKey(String key) {
        if (key == null || !key.startsWith(RequestChecks.FLOW_KEY_PREFIX)) {
            return Optional.empty();
        }
        String[] parts = key.substring(RequestChecks.FLOW_KEY_PREFIX.length()).split(":");
        if (parts.length < 4) {
            return Optional.empty();
        }
        String queue = String.join(":", Arrays.asList(parts).subList(0, parts.length - 3));
        try {
            return Optional.of(new JobIdentity(queue, parts[parts.length - 3], Long.parseLong(parts[parts.length - 2]), null));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * One job of a flow made by flow-add on the shard {@code place} names, minting with that shard's id layout; a root's
     * key {@code claim}ed as {@link FlowRoutes.RootMaker#make} says ({@code ""}: no claim is sent, as before key homes).
     */
    private FlowSubmitted add(Place place, String queue, String payload, int maxAttempts, String lane, int priority, String key,
            String parentRef, String policy, List<String> children, String claim) {
        QueueKeys keys = place.keys();
        List<String> args = new ArrayList<>(12 + children.size());
        args.addAll(List.of(keys.prefix(), payload, Integer.toString(maxAttempts), lane, Integer.toString(priority), key, parentRef,
                policy, Integer.toString(children.size())));
        args.addAll(children);
        args.addAll(place.idLayout());
        if (!claim.isEmpty()) {
            args.add(claim);   // only a sharded queue's key homes claim, always after the shard's id layout
        }
        Object reply = key.isEmpty() ? scripts.run(Script.FLOW_ADD, keys, null, args) : scripts.runKeyedSubmission(Script.FLOW_ADD, keys, args);
        return Replies.flowAdded(queue, reply);
    }

    /** Checks {@code node}'s children and encodes each as its parent stores it; {@code at} prefixes field names. */
    private List<String> childSpecs(NewFlow node, String at, int depth) {
        if (node.children().size() > MAX_CHILDREN) {
            throw new InvalidRequestException(at + "children", "must hold at most " + MAX_CHILDREN + " jobs, held " + node.children().size());
        }
        if (node.isParent() && depth >= MAX_DEPTH) {
            throw new InvalidRequestException(at + "children", "a flow nests at most " + MAX_DEPTH + " levels deep");
        }
        List<String> specs = new ArrayList<>(node.children().size());
        for (int i = 0; i < node.children().size(); i++) {
            NewFlow child = node.children().get(i);
            String here = at + "children[" + i + "].";
            if (child == null) {
                throw new InvalidRequestException(here.substring(0, here.length() - 1), "is required");
            }
            NewJob job = child.job();
            if (job == null) {
                throw new InvalidRequestException(here + "job", "is required");
            }
            refuseTiming(job, here);
            if (job.idempotencyKey().isPresent()) {
                throw new InvalidRequestException(here + "idempotencyKey", "a child's key is derived from its parent and index: give none");
            }
            String queue;
            try {
                queue = RequestChecks.queueName(child.queue());
            } catch (InvalidRequestException e) {
                throw new InvalidRequestException(here + "queue", message(e));
            }
            specs.add(new FlowSpec(queue, payload(job, here), lane(job, here), priority(job, here), maxAttempts(job, here), child.onFailure(),
                    childSpecs(child, here, depth + 1)).encode());
        }
        return specs;
    }

    /** A parent runs when its children settled and a child as soon as it is made: neither takes a delay, a run-at time or a dedupe key. */
    private static void refuseTiming(NewJob job, String at) {
        if (job.delay().isPresent()) {
            throw new InvalidRequestException(at + "delay", "a flow's jobs run when their children settled: give no delay");
        }
        if (job.runAt().isPresent()) {
            throw new InvalidRequestException(at + "runAt", "a flow's jobs run when their children settled: give no run-at time");
        }
        if (job.dedupe().isPresent()) {
            throw new InvalidRequestException(at + "dedupe", "a flow's jobs take no dedupe key");
        }
    }

    private String payload(NewJob job, String at) {
        return named(at, () -> RequestChecks.payload(job.payload(), settings.maxPayloadBytes()));
    }

    private static String lane(NewJob job, String at) {
        return named(at, () -> RequestChecks.laneName(job.lane().orElse(NewJob.DEFAULT_LANE)));
    }

    private static int priority(NewJob job, String at) {
        return named(at, () -> (int) RequestChecks.range("priority", job.priority().orElse(NewJob.DEFAULT_PRIORITY), NewJob.LOWEST_PRIORITY,
                NewJob.HIGHEST_PRIORITY));
    }

    private int maxAttempts(NewJob job, String at) {
        return named(at, () -> (int) RequestChecks.range("maxAttempts", job.maxAttempts().orElse(settings.defaultMaxAttempts()), 1,
                settings.maxAttemptsLimit()));
    }

    private static <T> T named(String at, Supplier<T> check) {
        try {
            return check.get();
        } catch (InvalidRequestException e) {
            if (at.isEmpty()) {
                throw e;
            }
            throw new InvalidRequestException(at + e.field(), message(e));
        }
    }

    /** The message of an {@link InvalidRequestException} without its field (it reads "field: message"). */
    private static String message(InvalidRequestException e) {
        return e.getMessage().substring(e.field().length() + 2);
    }

    // ---- the parent's view of its children ----

    /**
     * A flow parent's children in index order: the job made for each (empty until made) and its
     * settlement as the parent recorded it (empty until the relay applied its notice):
     * {@code completed}, {@code dead}, {@code cancelled}, or {@code dropped:<outcome>}.
     */
    public List<FlowChild> children(String queue, String parentId) {
        QueueKeys keys = routes.keysOfJob(queue, RequestChecks.jobId(parentId));
        Map<String, String> flow = read(() -> redis.hgetAll(keys.flow(parentId)));
        List<FlowChild> children = new ArrayList<>();
        for (int i = 0; flow.containsKey("spec:" + i); i++) {
            FlowSpec spec = FlowSpec.decode(flow.get("spec:" + i));
            Optional<String[]> made = Optional.ofNullable(flow.get("child:" + i)).map(ref -> ref.split(" "));
            children.add(new FlowChild(i, spec.queue(), made.map(ref -> ref[1]), made.map(ref -> Long.parseLong(ref[2])),
                    spec.policy(), Optional.ofNullable(flow.get("settled:" + i))));
        }
        return children;
    }

    // ---- the relay's and the repair's steps ----

    /** A child's settlement notice, as read from the child's queue. */
    public record Notice(String childQueue, String childId, String text) {

        String[] parts() {
            String[] parts = text.split(" ");
            if (parts.length != 7) {
                throw new IllegalStateException("notice of job " + childId + " on queue '" + childQueue + "' is malformed: '" + text + "'");
            }
            return parts;
        }
    }

    /** What applying a notice did to the parent: the word flow-child-settled answered (MARKED, RELEASED, FAILED, ALREADY, LATE, NOT_FOUND). */
    public record NoticeApplied(Notice notice, String outcome) {
    }

    /** Up to {@code limit} settlement notices of {@code queue}'s children that their parents have not acknowledged, from every shard. */
    public List<Notice> notices(String queue, int limit) {
        return scanShards(queue, QueueKeys::notices, limit).entrySet().stream().map(e -> new Notice(queue, e.getKey(), e.getValue())).toList();
    }

    /**
     * Applies a notice to its parent on the parent's slot (a set-once mark: a notice applied
     * twice moves the count once, F2), then deletes it on the child's slot (compare and delete,
     * F3). A crash between the two leaves the notice, which the next run applies again: a no-op.
     */
    public NoticeApplied apply(Notice notice) {
        String outcome = applyToParent(notice);
        acknowledge(notice);
        return new NoticeApplied(notice, outcome);
    }

    /** The first half of {@link #apply}: the parent's mark, on the parent's slot. Answers flow-child-settled's word. */
    String applyToParent(Notice notice) {
        String[] p = notice.parts();
        QueueKeys parent = routes.keysOfJob(p[0], p[1]);
        return Replies.flowChildSettled(scripts.run(Script.FLOW_CHILD_SETTLED, parent, p[1],
                List.of(parent.prefix(), p[1], p[2], p[3], p[4], p[5], notice.childQueue() + " " + notice.childId() + " " + p[6])));
    }

    /** The second half of {@link #apply}: the notice deleted as it was read, on the child's slot. */
    void acknowledge(Notice notice) {
        scripts.run(Script.FLOW_NOTICE_ACK, routes.keysOfJob(notice.childQueue(), notice.childId()), notice.childId(),
                List.of(notice.childId(), notice.text()));
    }

    /** The children a failed or cancelled parent still has to cancel: {@code text} holds one '<queue> <id> <created ms>' per line. */
    public record ChildCancels(String queue, String parentId, String text) {
    }

    /** Up to {@code limit} parents of {@code queue} whose children are still to be cancelled, from every shard. */
    public List<ChildCancels> childCancels(String queue, int limit) {
        return scanShards(queue, QueueKeys::childCancels, limit).entrySet().stream()
                .map(e -> new ChildCancels(queue, e.getKey(), e.getValue())).toList();
    }

    /**
     * Cancels each child listed (each on its own slot; a finished child is left as it is, an
     * active one is asked to stop), then deletes the list (compare and delete).
     *
     * @return how many children were cancelled or asked to stop
     */
    public int cancel(ChildCancels cancels) {
        int cancelled = cancelListed(cancels);
        scripts.run(Script.FLOW_CANCELS_DONE, routes.keysOfJob(cancels.queue(), cancels.parentId()), cancels.parentId(),
                List.of(cancels.parentId(), cancels.text()));
        return cancelled;
    }

    /** The first half of {@link #cancel}: each listed child cancelled on its own slot. */
    int cancelListed(ChildCancels cancels) {
        int cancelled = 0;
        for (String line : cancels.text().split("\n")) {
            String[] ref = line.split(" ");
            ManualTransition t = routes.adminOf(ref[0], ref[1]).cancel(ref[0], ref[1]);
            if (t instanceof ManualTransition.Moved || t instanceof ManualTransition.CancelRequested) {
                cancelled++;
            }
        }
        return cancelled;
    }

    /** A flow parent that waits: its id and creation time. */
    public record WaitingParent(String queue, String id, long createdMs) {
    }

    /** How many shards {@code queue} has: the repair walks each one's waiting set ({@link #parentsMissingChildren(String, int, long, long, int)}). */
    public int shardCount(String queue) {
        return routes.shardsOf(queue).size();
    }

    /**
     * The parents on shard {@code shard} of {@code queue} at ranks {@code from} to
     * {@code from + limit - 1} of its waiting set (oldest first), created before
     * {@code createdBeforeMs} (the server's clock), that still wait and whose children are not all
     * marked made. An empty answer with {@code walked} below the limit means the walk reached the end.
     */
    public MissingChildren parentsMissingChildren(String queue, int shard, long from, long createdBeforeMs, int limit) {
        QueueKeys keys = routes.shardsOf(queue).get(shard);
        return read(() -> {
            List<WaitingParent> missing = new ArrayList<>();
            var members = redis.zrangeWithScores(keys.waiting(), from, from + limit - 1);
            for (var member : members) {
                if (member.getScore() >= createdBeforeMs) {
                    return new MissingChildren(missing, true);
                }
                String id = member.getElement();
                List<String> f = redis.hmget(keys.job(id), "flow_expected", "flow_created");
                if (f.get(0) != null && !f.get(0).equals(f.get(1))) {
                    missing.add(new WaitingParent(queue, id, (long) member.getScore()));
                }
            }
            return new MissingChildren(missing, members.size() < limit);
        });
    }

    /** One page of the repair's walk: the parents missing children, and whether the walk reached its end (or parents too young). */
    public record MissingChildren(List<WaitingParent> parents, boolean end) {
    }

    /** Up to {@code limit} entries of the hash {@code hash} names, from each shard of {@code queue} in turn until the limit is reached. */
    private Map<String, String> scanShards(String queue, Function<QueueKeys, String> hash, int limit) {
        Map<String, String> found = new LinkedHashMap<>();
        for (QueueKeys shard : routes.shardsOf(queue)) {
            if (found.size() < limit) {
                found.putAll(scanHash(hash.apply(shard), limit - found.size()));
            }
        }
        return found;
    }

    private Map<String, String> scanHash(String key, int limit) {
        return read(() -> {
            Map<String, String> found = new LinkedHashMap<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<Map.Entry<String, String>> page = redis.hscan(key, cursor, new ScanParams().count(Math.max(10, limit)));
                for (Map.Entry<String, String> e : page.getResult()) {
                    if (found.size() < limit) {
                        found.put(e.getKey(), e.getValue());
                    }
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START) && found.size() < limit);
            return found;
        });
    }

}
