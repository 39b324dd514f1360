package io.echomq.queue.internal;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The state-machine scripts and the keys each one is called with. The number after the dash
 * in a file name is how many KEYS the script declares; {@link #keys} must produce exactly
 * that many (a test holds both to the script's header).
 */
public enum Script {
    ENQUEUE("enqueue-4.lua", (k, id) -> List.of(k.seq(), k.ring(), k.delayed(), k.idempotency())),
    ENQUEUE_BATCH("enqueue-batch-4.lua", (k, id) -> List.of(k.seq(), k.ring(), k.delayed(), k.idempotency())),
    CLAIM("claim-4.lua", (k, id) -> List.of(k.ring(), k.delayed(), k.active(), k.meta())),
    EXTEND("extend-2.lua", (k, id) -> List.of(k.job(id), k.active())),
    COMPLETE("complete-4.lua", (k, id) -> List.of(k.job(id), k.active(), k.completed(), k.idempotency())),
    COMPLETE_CLAIM("complete-claim-6.lua", (k, id) -> List.of(k.active(), k.completed(), k.ring(), k.delayed(), k.meta(),
            k.idempotency())),
    RETRY("retry-6.lua", (k, id) -> List.of(k.job(id), k.active(), k.delayed(), k.dead(), k.ring(), k.cancelled())),
    REAP("reap-4.lua", (k, id) -> List.of(k.active(), k.dead(), k.ring(), k.cancelled())),
    RESCHEDULE("reschedule-3.lua", (k, id) -> List.of(k.job(id), k.delayed(), k.ring())),
    STOP("stop-3.lua", (k, id) -> List.of(k.job(id), k.active(), k.cancelled())),
    CANCEL("cancel-4.lua", (k, id) -> List.of(k.job(id), k.delayed(), k.cancelled(), k.ring())),
    REQUEUE("requeue-3.lua", (k, id) -> List.of(k.job(id), k.dead(), k.ring())),
    STATS("stats-7.lua", (k, id) -> List.of(k.ring(), k.delayed(), k.active(), k.completed(), k.dead(), k.cancelled(), k.meta())),
    TRIM("trim-4.lua", (k, id) -> List.of(k.completed(), k.cancelled(), k.dead(), k.idempotency())),
    SET_PAUSED("set-paused-1.lua", (k, id) -> List.of(k.meta())),
    MAINTENANCE_LEASE("maintenance-lease-2.lua", (k, id) -> List.of(k.maintenanceLease(), k.meta())),
    SET_EVENTS("set-events-2.lua", (k, id) -> List.of(k.meta(), k.events())),
    SET_LIMITS("set-limits-4.lua", (k, id) -> List.of(k.meta(), k.active(), k.held(), k.ring())),
    REMOVE("remove-5.lua", (k, id) -> List.of(k.job(id), k.completed(), k.dead(), k.cancelled(), k.idempotency())),
    RECONCILE("reconcile-6.lua", (k, id) -> List.of(k.job(id), k.delayed(), k.dead(), k.cancelled(), k.completed(), k.ring())),
    // The flow scripts: a parent's (flow-child-created, flow-child-settled) and a child's (flow-notice-ack) take that job's id.
    FLOW_ADD("flow-add-5.lua", (k, id) -> List.of(k.seq(), k.ring(), k.delayed(), k.idempotency(), k.waiting())),
    FLOW_CHILD_CREATED("flow-child-created-2.lua", (k, id) -> List.of(k.job(id), k.flow(id))),
    FLOW_CHILD_SETTLED("flow-child-settled-5.lua", (k, id) -> List.of(k.job(id), k.flow(id), k.waiting(), k.dead(), k.ring())),
    FLOW_NOTICE_ACK("flow-notice-ack-2.lua", (k, id) -> List.of(k.notices(), k.job(id))),
    FLOW_CANCELS_DONE("flow-cancels-done-1.lua", (k, id) -> List.of(k.childCancels())),
    // The schedule scripts take the schedule's name where the job scripts take a job id.
    SCHEDULE_PUT("schedule-put-2.lua", (k, name) -> List.of(k.schedule(name), k.schedules())),
    SCHEDULE_REMOVE("schedule-remove-2.lua", (k, name) -> List.of(k.schedule(name), k.schedules())),
    SCHEDULE_SET_PAUSED("schedule-set-paused-2.lua", (k, name) -> List.of(k.schedule(name), k.schedules())),
    SCHEDULES_DUE("schedules-due-1.lua", (k, name) -> List.of(k.schedules())),
    SCHEDULE_FIRE("schedule-fire-6.lua", (k, name) -> List.of(k.schedule(name), k.schedules(), k.seq(), k.ring(), k.delayed(),
            k.idempotency())),
    // A shard's id layout (docs/SHARDING.md): the keys given are the shard's own.
    SHARD_LAYOUT("shard-layout-1.lua", (k, id) -> List.of(k.meta())),
    // A shard's settings, written on shard 0 and copied to the others by version (docs/SHARDING.md, 6).
    SHARD_META("shard-meta-5.lua", (k, id) -> List.of(k.meta(), k.events(), k.active(), k.held(), k.ring())),
    // Key homes of a sharded queue (docs/SHARDING.md 3.1): they take the key's kind, idem or dedupe, where the job scripts take an id.
    KEY_HOME_RESERVE("key-home-reserve-2.lua", (k, kind) -> List.of(k.homes(kind), k.homeSeq())),
    KEY_HOME_CONFIRM("key-home-confirm-1.lua", (k, kind) -> List.of(k.homes(kind))),
    KEY_HOME_RELEASE("key-home-release-1.lua", (k, kind) -> List.of(k.fence(kind))),
    KEY_HOME_FLOOR("key-home-floor-1.lua", (k, kind) -> List.of(k.fenceFloor())),
    // The schedule directory of a sharded queue, on shard 0 (docs/SHARDING.md 3.3).
    SCHEDULE_HOME("schedule-home-3.lua", (k, name) -> List.of(k.scheduleHomes(), k.scheduleHomeTokens(), k.scheduleMoves()));

    /** Scripts whose reply acknowledges a submission: the ones a {@code WAIT} for replicas follows. */
    private static final Set<Script> SUBMISSIONS = EnumSet.of(ENQUEUE, ENQUEUE_BATCH, FLOW_ADD);

    /**
     * Scripts a second run of which changes nothing a caller relies on, so a client may resend
     * them after a lost reply (the cluster client does, on connection errors): a read, a flag,
     * the event stream's cap or the limits set to a value, passes that do only what is due (reap, trim), a heartbeat by the
     * lease's holder, the maintenance lease taken again by its holder or handed back once; and the
     * schedule scripts that compare before they change (a definition put
     * again is unchanged, a firing sent again finds its slot moved: each slot's job also carries
     * the slot as its idempotency key), and the flow edges, each a set-once mark or a compare-and-delete
     * (docs/ARCHITECTURE.md, F2, F3), a shard's layout recorded again (it answers SAME), a shard's
     * settings written again (a second version of the same settings) or copied again (the version compare refuses it), the key-home
     * steps (a reservation sent again answers itself, a confirm or forget compares, a fence or floor only rises) and the schedule
     * directory's steps (a claim answers the home or the move it recorded, a release or a move's end compares). Every other script is sent once; a submission is
     * resendable only when every job carries an idempotency key (the caller says so).
     */
    private static final Set<Script> RESENDABLE = EnumSet.of(STATS, SET_PAUSED, SET_EVENTS, SET_LIMITS, REAP, TRIM, EXTEND, SCHEDULE_PUT,
            SCHEDULE_SET_PAUSED, SCHEDULES_DUE, SCHEDULE_FIRE, MAINTENANCE_LEASE, FLOW_CHILD_CREATED, FLOW_CHILD_SETTLED, FLOW_NOTICE_ACK,
            FLOW_CANCELS_DONE, SHARD_LAYOUT, SHARD_META, KEY_HOME_RESERVE, KEY_HOME_CONFIRM, KEY_HOME_RELEASE, KEY_HOME_FLOOR, SCHEDULE_HOME);

    /** Where the scripts live on the class path (the {@code echomq-lua} jar). */
    public static final String RESOURCE_FOLDER = "io/echomq/lua/";

    private final String fileName;
    private final BiFunction<QueueKeys, String, List<String>> keys;

    Script(String fileName, BiFunction<QueueKeys, String, List<String>> keys) {
        this.fileName = fileName;
        this.keys = keys;
    }

    public String fileName() {
        return fileName;
    }

    /** True when the script's reply tells a submitter that the job is accepted. */
    public boolean acknowledgesSubmission() {
        return SUBMISSIONS.contains(this);
    }

    /** True when a lost reply may be answered by sending the script again (see {@link #RESENDABLE}). */
    public boolean resendable() {
        return RESENDABLE.contains(this);
    }

    /** The KEYS count the file name declares. */
    public int declaredKeyCount() {
        return Integer.parseInt(fileName.substring(fileName.lastIndexOf('-') + 1, fileName.length() - ".lua".length()));
    }

    /** The KEYS this script is called with; {@code jobId} is ignored by queue-wide scripts. */
    public List<String> keys(QueueKeys queueKeys, String jobId) {
        return keys.apply(queueKeys, jobId);
    }
}
