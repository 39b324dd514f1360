package io.echomq.queue.internal;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.Enqueued;
import io.echomq.queue.FlowSubmitted;
import io.echomq.queue.JobState;
import io.echomq.queue.Lease;
import io.echomq.queue.LeaseExtension;
import io.echomq.queue.MaintenanceLease;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ReapResult;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.Settlement;
import io.echomq.queue.StopOutcome;
import io.echomq.queue.TrimResult;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.schedule.ScheduleFiring;
import io.echomq.queue.shard.ShardCountRefusedException;
import io.echomq.queue.shard.ShardLayoutRefusal;
import io.echomq.queue.shard.ShardSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one place that turns script replies into outcomes. Each method reads the reply shape
 * documented in the script's header; a reply of any other shape is a bug and fails loudly.
 */
public final class Replies {

    private Replies() {
    }

    /**
     * The answer of enqueue.
     *
     * @throws KeyHomeRedirect when a shard of a sharded queue did not make the job because of its keys' homes
     */
    public static Enqueued enqueued(String queue, Object reply) {
        List<Object> r = list(reply, "enqueue");
        refuseIfShardsUnknown(queue, r);
        refuseIfRedirected(r);
        return enqueuedOne(queue, r, 0);
    }

    /**
     * A submission of one job (enqueue, or flow-add of a flow's root) that a shard of a sharded
     * queue answered HOME or FENCED: it made nothing, and the sharded client follows the key's home.
     *
     * @throws KeyHomeRedirect when it did
     */
    private static void refuseIfRedirected(List<Object> r) {
        KeyHomeRedirect.Redirect redirect = redirect(r, 0);
        if (redirect != null) {
            throw new KeyHomeRedirect(Collections.singletonList(null), Map.of(0, redirect));
        }
    }

    /** The job answered at {@code r[at]} by enqueue or enqueue-batch, one that is no redirect. */
    private static Enqueued enqueuedOne(String queue, List<Object> r, int at) {
        String status = text(r.get(at));
        return switch (status) {
            case "CREATED" -> new Enqueued(queue, text(r.get(at + 1)), state(r.get(at + 2)), false, Enqueued.Outcome.CREATED);
            case "DUPLICATE" -> new Enqueued(queue, text(r.get(at + 1)), state(r.get(at + 2)), true, Enqueued.Outcome.DUPLICATE);
            case "REPLACED" -> new Enqueued(queue, text(r.get(at + 1)), state(r.get(at + 2)), false, Enqueued.Outcome.REPLACED);
            // The window's job may have been deleted since it finished: the window holds all the same.
            case "THROTTLED" -> new Enqueued(queue, text(r.get(at + 1)), text(r.get(at + 2)).isEmpty() ? null : state(r.get(at + 2)),
                    false, Enqueued.Outcome.THROTTLED);
            default -> throw unexpected("enqueue", r.subList(at, at + 3));
        };
    }

    /**
     * A script that mints answers {@code SHARDED} when this client sent no id layout to a queue laid
     * out over shards (includes/mint_id): it made nothing, and this client must not send to that
     * queue until it is given the queue's shards.
     *
     * @throws ShardCountRefusedException naming {@code echomq.queues.<q>.shards}
     */
    private static void refuseIfShardsUnknown(String queue, List<Object> r) {
        if (!r.isEmpty() && "SHARDED".equals(text(r.get(0)))) {
            String shards = text(r.get(1));
            throw new ShardCountRefusedException("echomq.queues." + queue + ".shards: queue '" + queue + "' is laid out over " + shards
                    + " shards, and this client sent to it as to a queue of one shard, so nothing was made (its ids would name no "
                    + "shard); give this engine the queue's shard count (echomq.queues." + queue + ".shards=" + shards
                    + ", docs/SHARDING.md 10), or submit through QueueShards");
        }
    }

    /** A shard's HOME or FENCED answer at {@code r[at]}: why it made no job; null for any other answer. */
    private static KeyHomeRedirect.Redirect redirect(List<Object> r, int at) {
        return switch (text(r.get(at))) {
            case "HOME" -> new KeyHomeRedirect.Redirect(text(r.get(at + 2)), Integer.parseInt(text(r.get(at + 1))));
            case "FENCED" -> new KeyHomeRedirect.Redirect(text(r.get(at + 1)), -1);
            default -> null;
        };
    }

    /**
     * The answers of enqueue-batch.
     *
     * @throws KeyHomeRedirect when a shard of a sharded queue did not make some of the jobs because of their keys' homes
     */
    public static List<Enqueued> enqueuedBatch(String queue, Object reply) {
        List<Object> r = list(reply, "enqueue-batch");
        refuseIfShardsUnknown(queue, r);
        List<Enqueued> jobs = new ArrayList<>(r.size() / 3);
        // Made only at a shard's first redirect: an unsharded batch never has one.
        Map<Integer, KeyHomeRedirect.Redirect> redirects = null;
        for (int i = 0; i + 2 < r.size(); i += 3) {
            KeyHomeRedirect.Redirect redirect = redirect(r, i);
            if (redirect == null) {
                jobs.add(enqueuedOne(queue, r, i));
                continue;
            }
            if (redirects == null) {
                redirects = new HashMap<>();
            }
            redirects.put(i / 3, redirect);
            jobs.add(null);
        }
        if (redirects != null) {
            throw new KeyHomeRedirect(jobs, redirects);
        }
        return List.copyOf(jobs);
    }

    /** A key-home or schedule-home script's reply (key-home-reserve, -confirm, -release, -floor, schedule-home): its values as text. */
    public static List<String> keyHome(Object reply, Script script) {
        return list(reply, script.fileName()).stream().map(Replies::text).toList();
    }

    public static List<ClaimedJob> claimed(String queue, Object reply) {
        List<Object> r = list(reply, "claim");
        if (r.isEmpty()) {
            return List.of();
        }
        Instant leaseUntil = millis(r.get(0));
        List<ClaimedJob> jobs = new ArrayList<>((r.size() - 1) / 6);
        for (int i = 1; i + 5 < r.size(); i += 6) {
            String idempotencyKey = text(r.get(i + 5));
            Lease lease = new Lease(queue, text(r.get(i)), Long.parseLong(text(r.get(i + 4))), number(r.get(i + 2)),
                    idempotencyKey.isEmpty() ? null : idempotencyKey);
            jobs.add(new ClaimedJob(lease, text(r.get(i + 1)), text(r.get(i + 3)), leaseUntil));
        }
        return List.copyOf(jobs);
    }

    /** complete-claim's reply: one settlement per acknowledgement, in order, then the claim. */
    public static CompletedAndClaimed completedAndClaimed(String queue, List<Lease> acknowledged, Object reply) {
        List<Object> r = list(reply, "complete-claim");
        List<Object> replies = list(r.get(0), "complete-claim");
        if (replies.size() != acknowledged.size()) {
            throw unexpected("complete-claim", reply);
        }
        List<Settlement> settlements = new ArrayList<>(replies.size());
        for (int i = 0; i < replies.size(); i++) {
            settlements.add(completed(acknowledged.get(i), replies.get(i)));
        }
        return new CompletedAndClaimed(List.copyOf(settlements), claimed(queue, r.get(1)), Duration.ofMillis(number(r.get(2))));
    }

    /** The shard count a shard records when it refused a sharded client's complete-claim made under another one. */
    public static Optional<Integer> shardCountRefused(Object reply) {
        List<Object> r = list(reply, "complete-claim");
        return !r.isEmpty() && "SHARD_COUNT".equals(text(r.get(0))) ? Optional.of((int) number(r.get(1))) : Optional.empty();
    }

    /** A complete-claim's lanes with work after its claim, when the call asked for them (docs/SHARDING.md, 5). */
    public static int lanesWithWork(Object reply) {
        List<Object> r = list(reply, "complete-claim");
        if (r.size() < 4) {
            throw unexpected("complete-claim", reply);
        }
        return (int) number(r.get(3));
    }

    public static LeaseExtension extended(Lease lease, Object reply) {
        List<Object> r = list(reply, "extend");
        if ("OK".equals(text(r.get(0)))) {
            return new LeaseExtension.Extended(lease, millis(r.get(1)), r.size() > 2 && number(r.get(2)) == 1);
        }
        return rejected(lease, r, "extend");
    }

    public static Settlement completed(Lease lease, Object reply) {
        List<Object> r = list(reply, "complete");
        if ("OK".equals(text(r.get(0)))) {
            return new Settlement.Completed(lease, millis(r.get(1)));
        }
        return rejected(lease, r, "complete");
    }

    public static RetryOutcome retried(Lease lease, Object reply) {
        List<Object> r = list(reply, "retry");
        return switch (text(r.get(0))) {
            case "RETRY" -> new RetryOutcome.Scheduled(lease, state(r.get(1)), millis(r.get(2)));
            case "DEAD" -> new RetryOutcome.DeadLettered(lease, number(r.get(1)));
            case "CANCELLED" -> new RetryOutcome.Cancelled(lease, millis(r.get(1)));
            default -> rejected(lease, r, "retry");
        };
    }

    public static ReapResult reaped(String queue, Object reply) {
        List<Object> r = list(reply, "reap");
        List<String> ids = r.subList(3, r.size()).stream().map(Replies::text).toList();
        return new ReapResult(queue, (int) number(r.get(0)), (int) number(r.get(1)), (int) number(r.get(2)), ids);
    }

    public static ManualTransition moved(String queue, String jobId, JobState to, Object reply, String refusal) {
        return manual(queue, jobId, reply, refusal, from -> new ManualTransition.Moved(queue, jobId, from, to));
    }

    /** reschedule's reply: {@code OK pending now} (promoted) or {@code OK delayed due}, else a refusal. */
    public static ManualTransition rescheduled(String queue, String jobId, Object reply, String refusal) {
        return manual(queue, jobId, reply, refusal, from -> {
            List<Object> r = list(reply, "reschedule");
            JobState to = state(r.get(1));
            return to == JobState.PENDING ? new ManualTransition.Moved(queue, jobId, JobState.DELAYED, JobState.PENDING)
                    : new ManualTransition.Rescheduled(queue, jobId, millis(r.get(2)));
        });
    }

    /** cancel's reply: moved to cancelled, a cancel requested of an active job, or a refusal. */
    public static ManualTransition cancelled(String queue, String jobId, Object reply, String refusal) {
        if ("REQUESTED".equals(text(list(reply, "cancel").get(0)))) {
            return new ManualTransition.CancelRequested(queue, jobId);
        }
        return moved(queue, jobId, JobState.CANCELLED, reply, refusal);
    }

    public static StopOutcome stopped(Lease lease, Object reply) {
        List<Object> r = list(reply, "stop");
        return switch (text(r.get(0))) {
            case "OK" -> new StopOutcome.Stopped(lease, millis(r.get(1)));
            case "NOT_REQUESTED" -> new StopOutcome.NotRequested(lease);
            default -> rejected(lease, r, "stop");
        };
    }

    public static ManualTransition removed(String queue, String jobId, Object reply, String refusal) {
        return manual(queue, jobId, reply, refusal, from -> new ManualTransition.Removed(queue, jobId, from));
    }

    /** The replies of operator scripts: OK with the previous state, NOT_FOUND, or REFUSED with the state. */
    private static ManualTransition manual(String queue, String jobId, Object reply, String refusal,
            java.util.function.Function<JobState, ManualTransition> done) {
        List<Object> r = list(reply, "manual transition");
        return switch (text(r.get(0))) {
            case "OK" -> done.apply(state(r.get(1)));
            case "NOT_FOUND" -> new ManualTransition.Refused(queue, jobId, Optional.empty(), "job " + jobId + " does not exist");
            case "REFUSED" -> {
                JobState current = state(r.get(1));
                yield new ManualTransition.Refused(queue, jobId, Optional.of(current),
                        "job " + jobId + " is " + current.wireName() + ": " + refusal);
            }
            default -> throw unexpected("manual transition", reply);
        };
    }

    public static QueueStats stats(String queue, Object reply) {
        List<Object> r = list(reply, "stats");
        return new QueueStats(queue, number(r.get(0)), number(r.get(1)), number(r.get(2)), number(r.get(3)),
                number(r.get(4)), number(r.get(5)), number(r.get(6)) == 1, (int) number(r.get(7)),
                (int) number(r.get(8)), number(r.get(9)));
    }

    public static TrimResult trimmed(String queue, Object reply) {
        List<Object> r = list(reply, "trim");
        return new TrimResult(queue, (int) number(r.get(0)), (int) number(r.get(1)), (int) number(r.get(2)));
    }

    /** {@code maintenance-lease 'hold'}: who holds the queue's maintenance lease, and for how long more. */
    public static MaintenanceLease maintenanceLease(Object reply) {
        List<Object> r = list(reply, "maintenance-lease");
        return switch (text(r.get(0))) {
            case "HELD" -> new MaintenanceLease.Held(number(r.get(1)), Duration.ofMillis(number(r.get(2))));
            case "HELD_BY" -> new MaintenanceLease.HeldBy(text(r.get(1)), Duration.ofMillis(Math.max(0, number(r.get(2)))));
            default -> throw unexpected("maintenance-lease", reply);
        };
    }

    /** {@code maintenance-lease 'release'}: true when the caller held the lease. */
    public static boolean maintenanceLeaseReleased(Object reply) {
        return switch (text(list(reply, "maintenance-lease").get(0))) {
            case "RELEASED" -> true;
            case "NOT_HELD" -> false;
            default -> throw unexpected("maintenance-lease", reply);
        };
    }

    public static boolean paused(Object reply) {
        return number(list(reply, "set-paused").get(1)) == 1;
    }

    /** {@code set-events}: the stream's length after the change. */
    public static long eventsSet(Object reply) {
        return number(list(reply, "set-events").get(1));
    }

    /** {@code set-limits}: OK, or KEPT for configured limits applied before. */
    public static String limitsSet(Object reply) {
        String status = text(list(reply, "set-limits").get(0));
        return switch (status) {
            case "OK", "KEPT" -> status;
            default -> throw unexpected("set-limits", reply);
        };
    }

    /** {@code schedule-put}: what it did, or empty when a later put or remove of the name was applied first (SUPERSEDED). */
    public static Optional<String> schedulePut(Object reply) {
        String status = text(list(reply, "schedule-put").get(0));
        return switch (status) {
            case "CREATED", "REPLACED", "UNCHANGED", "KEPT" -> Optional.of(status);
            case "SUPERSEDED" -> Optional.empty();
            default -> throw unexpected("schedule-put", reply);
        };
    }

    /** {@code schedule-remove}: whether there was a schedule, or empty when a later put or remove of the name was applied first. */
    public static Optional<Boolean> scheduleRemoved(Object reply) {
        return "SUPERSEDED".equals(text(list(reply, "schedule-remove").get(0))) ? Optional.empty()
                : Optional.of(scheduleFound(reply, "schedule-remove"));
    }

    /**
     * {@code schedule-remove} in mode {@code move} (a move's S2): what the schedule carries to its new
     * shard, or empty when a later put or remove of the name was applied first.
     */
    public static Optional<ScheduleClient.MovedOut> scheduleMovedOut(Object reply) {
        List<Object> r = list(reply, "schedule-remove");
        return switch (text(r.get(0))) {
            case "MOVED" -> Optional.of(new ScheduleClient.MovedOut(number(r.get(1)) == 1, "1".equals(text(r.get(2))), text(r.get(3))));
            case "SUPERSEDED" -> Optional.empty();
            default -> throw unexpected("schedule-remove", reply);
        };
    }

    /** {@code schedule-remove} in mode {@code moved} (a move's S4 on its old shard): RELEASED, whatever was left to release. */
    public static void scheduleMoveReleased(Object reply) {
        if (!"RELEASED".equals(text(list(reply, "schedule-remove").get(0)))) {
            throw unexpected("schedule-remove", reply);
        }
    }

    /** {@code schedule-remove}, {@code schedule-set-paused}: true for OK, false for NOT_FOUND. */
    public static boolean scheduleFound(Object reply, String script) {
        String status = text(list(reply, script).get(0));
        return switch (status) {
            case "OK" -> true;
            case "NOT_FOUND" -> false;
            default -> throw unexpected(script, reply);
        };
    }

    public static ScheduleClient.Due schedulesDue(Object reply) {
        List<Object> r = list(reply, "schedules-due");
        List<String> names = new ArrayList<>(r.size() - 1);
        for (int i = 1; i < r.size(); i++) {
            names.add(text(r.get(i)));
        }
        return new ScheduleClient.Due(number(r.get(0)), List.copyOf(names));
    }

    public static ScheduleFiring scheduleFired(Object reply) {
        List<Object> r = list(reply, "schedule-fire");
        String status = text(r.get(0));
        return switch (status) {
            case "FIRED" -> {
                List<ScheduleFiring.Fired> fired = new ArrayList<>((r.size() - 3) / 2);
                for (int i = 3; i + 1 < r.size(); i += 2) {
                    fired.add(new ScheduleFiring.Fired(Long.parseLong(text(r.get(i))), text(r.get(i + 1))));
                }
                yield new ScheduleFiring(ScheduleFiring.Status.FIRED, number(r.get(1)), number(r.get(2)), fired, Optional.empty());
            }
            case "STALE" -> new ScheduleFiring(ScheduleFiring.Status.STALE, 0, 0, List.of(),
                    Optional.of("the schedule is at version " + number(r.get(1)) + ", next slot '" + text(r.get(2)) + "'"));
            case "PAUSED" -> new ScheduleFiring(ScheduleFiring.Status.PAUSED, 0, 0, List.of(), Optional.empty());
            case "NOT_DUE" -> new ScheduleFiring(ScheduleFiring.Status.NOT_DUE, 0, 0, List.of(),
                    Optional.of("the server time is " + number(r.get(1)) + " ms"));
            case "REFUSED" -> new ScheduleFiring(ScheduleFiring.Status.REFUSED, 0, 0, List.of(), Optional.of(text(r.get(1))));
            case "NOT_FOUND" -> new ScheduleFiring(ScheduleFiring.Status.NOT_FOUND, 0, 0, List.of(), Optional.empty());
            default -> throw unexpected("schedule-fire", reply);
        };
    }

    private static Rejected rejected(Lease lease, List<Object> r, String script) {
        String status = text(r.get(0));
        return switch (status) {
            case "NOT_FOUND" -> new Rejected(lease, Rejected.Reason.NOT_FOUND, Optional.empty(), 0);
            case "STALE_TOKEN" -> new Rejected(lease, Rejected.Reason.STALE_TOKEN, Optional.of(state(r.get(1))), number(r.get(2)));
            case "NOT_ACTIVE" -> new Rejected(lease, Rejected.Reason.NOT_ACTIVE, Optional.of(state(r.get(1))), number(r.get(2)));
            default -> throw unexpected(script, r);
        };
    }

    /**
     * flow-add's reply: the job made, or the one its idempotency key names (also as a key's owner or
     * home on another shard answers a flow's root: key-home-reserve's or key-home-release's DUPLICATE).
     *
     * @throws KeyHomeRedirect when a shard of a sharded queue made no root because of its key's home
     */
    public static FlowSubmitted flowAdded(String queue, Object reply) {
        List<Object> r = list(reply, "flow-add");
        refuseIfShardsUnknown(queue, r);
        refuseIfRedirected(r);
        return switch (text(r.get(0))) {
            case "CREATED", "DUPLICATE" -> new FlowSubmitted(queue, text(r.get(1)), number(r.get(3)), state(r.get(2)),
                    "DUPLICATE".equals(text(r.get(0))));
            default -> throw unexpected("flow-add", r);
        };
    }

    /** flow-child-created's reply: the parent's state now, empty when the parent is gone. */
    public static java.util.Optional<JobState> flowChildMarked(Object reply) {
        List<Object> r = list(reply, "flow-child-created");
        return switch (text(r.get(0))) {
            case "OK" -> java.util.Optional.of(state(r.get(1)));
            case "NOT_FOUND" -> java.util.Optional.empty();
            default -> throw unexpected("flow-child-created", r);
        };
    }

    /** flow-child-settled's reply word: MARKED, RELEASED, FAILED, ALREADY, LATE or NOT_FOUND. */
    public static String flowChildSettled(Object reply) {
        List<Object> r = list(reply, "flow-child-settled");
        String word = r.isEmpty() ? "" : text(r.get(0));
        return switch (word) {
            case "MARKED", "RELEASED", "FAILED", "ALREADY", "LATE", "NOT_FOUND" -> word;
            default -> throw unexpected("flow-child-settled", r);
        };
    }

    /** A shard's layout recorded (or already so): empty; else the layout it keeps and the jobs it holds. */
    public static Optional<ShardLayoutRefusal> shardLayout(Object reply) {
        List<Object> r = list(reply, "shard-layout");
        return switch (text(r.get(0))) {
            case "SET", "SAME" -> Optional.empty();
            case "HOLDS_JOBS" -> Optional.of(new ShardLayoutRefusal((int) number(r.get(1)), (int) number(r.get(2)), number(r.get(3))));
            default -> throw unexpected("shard-layout", reply);
        };
    }

    /** shard-meta's write or read: shard 0's settings now, and whether configured limits were applied before (KEPT). */
    public static ShardSettings shardSettings(Object reply) {
        List<Object> r = list(reply, "shard-meta");
        String status = text(r.get(0));
        if (!"OK".equals(status) && !"KEPT".equals(status) || r.size() < 6) {
            throw unexpected("shard-meta", reply);
        }
        return new ShardSettings(number(r.get(1)), "1".equals(text(r.get(2))), text(r.get(3)), text(r.get(4)), text(r.get(5)),
                "KEPT".equals(status));
    }

    /** shard-meta's copy: true when the shard took the copy, false when it already had that version or a newer one. */
    public static boolean shardSettingsCopied(Object reply) {
        List<Object> r = list(reply, "shard-meta");
        return switch (text(r.get(0))) {
            case "COPIED" -> true;
            case "CURRENT" -> false;
            default -> throw unexpected("shard-meta", reply);
        };
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object reply, String script) {
        if (reply instanceof List<?> l) {
            return (List<Object>) l;
        }
        throw unexpected(script, reply);
    }

    private static String text(Object value) {
        if (value instanceof byte[] bytes) {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        return String.valueOf(value);
    }

    private static long number(Object value) {
        if (value instanceof Long l) {
            return l;
        }
        return Long.parseLong(text(value));
    }

    private static Instant millis(Object value) {
        return Instant.ofEpochMilli(number(value));
    }

    private static JobState state(Object value) {
        return JobState.fromWireName(text(value));
    }

    private static IllegalStateException unexpected(String script, Object reply) {
        return new IllegalStateException("unexpected reply from the " + script + " script: " + reply);
    }
}
