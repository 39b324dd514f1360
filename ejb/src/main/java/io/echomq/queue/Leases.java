package io.echomq.queue;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.shard.ShardCountRefusedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A worker's part of the queue: leasing jobs on the server clock, keeping the leases alive, and
 * settling them. Every call on a lease is fenced by its token and its job's creation time: a
 * stale worker's call is {@link Rejected} and changes nothing (invariant 4). Thread-safe;
 * obtained from {@link QueueClient#leases()}.
 */
public final class Leases implements WorkerLeases {

    /** The most jobs one claim may lease, and one complete-claim may acknowledge. */
    public static final int MAX_CLAIM_JOBS = RequestChecks.MAX_CLAIM_BATCH;

    private final ScriptRunner scripts;
    /** Due delayed jobs a claim makes pending before it leases. */
    private final int promoteBatch;
    /** The bounds completed jobs are trimmed to as they settle. */
    private final Retention retention;

    /** Where a leased flow parent's children are read. */
    private final Flows flows;
    /** A queue's keys after checking its name: the queue's own, or one shard's for a shard's client (docs/SHARDING.md). */
    private final Function<String, QueueKeys> keysOf;
    /** complete-claim's shard count argument: a shard's client's shard count N, {@code ""} on an unsharded client. */
    private final String shards;

    Leases(ScriptRunner scripts, int promoteBatch, Retention retention, Flows flows, Function<String, QueueKeys> keysOf,
            String shards) {
        this.flows = flows;
        this.keysOf = keysOf;
        this.shards = shards;
        this.scripts = scripts;
        this.promoteBatch = promoteBatch;
        this.retention = retention;
    }

    /** The keys of a lease's queue, after checking every field the fencing compares. */
    private QueueKeys keysOf(Lease lease) {
        RequestChecks.leaseFields(lease);
        return keysOf.apply(lease.queue());
    }

    /**
     * The flow children of a job the caller holds, with their outcomes (a parent is leased only
     * once each settled); empty for a job that is no flow parent. See {@link Flows#children}.
     */
    @Override
    public List<FlowChild> flowChildren(Lease lease) {
        return flows.children(lease.queue(), lease.jobId());
    }

    /**
     * Leases up to {@code maxJobs} jobs to {@code workerId} for {@code lease}, on the server
     * clock. Returns an empty list when nothing is claimable or the queue is paused.
     */
    public List<ClaimedJob> claim(String queue, Duration lease, int maxJobs, String workerId) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.lease(lease);
        RequestChecks.range("maxJobs", maxJobs, 1, MAX_CLAIM_JOBS);
        RequestChecks.workerId(workerId);
        Object reply = scripts.run(Script.CLAIM, keys, null, List.of(keys.prefix(), Long.toString(lease.toMillis()),
                Integer.toString(maxJobs), workerId, Integer.toString(promoteBatch)));
        return Replies.claimed(queue, reply);
    }

    /**
     * A worker's round trip: acknowledges the {@code finished} leases (each fenced by its token,
     * as {@link #complete} does) and then leases up to {@code maxJobs} new jobs (as {@link #claim}
     * does), in one atomic script call. Either part may be empty. All leases must be of
     * {@code queue}. Completed jobs beyond the {@link QueueSettings#retention() retention} bounds
     * are deleted in the same call (at most two per job completed).
     *
     * <p>The idle claimers of a queue take turns: an idle caller ({@code idlePoll} its idle poll,
     * zero when it is not idle) whose claim finds nothing books the queue's next idle turn, one
     * idle poll after the last one booked, and is told how long until it
     * ({@link CompletedAndClaimed#untilIdleTurn}). N idle workers that claim at their turns ask
     * the queue once per idle poll between them, and a job that arrives waits at most one idle
     * poll for a claim while none of them stops.
     */
    @Override
    public CompletedAndClaimed completeAndClaim(String queue, List<Lease> finished, Duration lease, int maxJobs,
            String workerId, Duration idlePoll) {
        return Replies.completedAndClaimed(queue, finished,
                scripts.run(completeClaimCall(queue, finished, lease, maxJobs, workerId, idlePoll, "")));
    }

    /** What a shard's {@code complete-claim} did, and its lanes with work after the claim. */
    public record ShardTurn(CompletedAndClaimed done, int lanesWithWork) {
    }

    /**
     * {@link #completeAndClaim} on one shard of a sharded queue, answering the shard's lanes with
     * work too (read in the same script), by which {@code io.echomq.queue.shard} splits the next
     * claims over the shards (docs/SHARDING.md, 5). An {@code idlePoll} above zero books the
     * queue's next idle turn on this shard's keys if its claim finds nothing, as
     * {@link #completeAndClaim} does: the sharded client sends it to shard 0 only, and only when
     * every other shard came up empty in the same turn.
     *
     * @throws ShardCountRefusedException when the shard records another count than this shard's client claims under
     *                                    (docs/SHARDING.md, 10): nothing was acknowledged nor claimed
     */
    public ShardTurn completeAndClaimOnShard(String queue, List<Lease> finished, Duration lease, int maxJobs, String workerId,
            Duration idlePoll) {
        return shardTurn(queue, finished, scripts.run(completeAndClaimCallOnShard(queue, finished, lease, maxJobs, workerId, idlePoll)));
    }

    /**
     * The script call {@link #completeAndClaimOnShard} makes, for a caller that runs the calls of
     * several shards together ({@link ScriptRunner#runTogether}); {@link #shardTurn} reads its reply.
     */
    public ScriptRunner.ScriptCall completeAndClaimCallOnShard(String queue, List<Lease> finished, Duration lease, int maxJobs,
            String workerId, Duration idlePoll) {
        if (shards.isEmpty()) {
            throw new IllegalStateException("shard turns are for a shard's client; queue '" + queue + "' is not sharded here");
        }
        return completeClaimCall(queue, finished, lease, maxJobs, workerId, idlePoll, shards);
    }

    /**
     * What the reply to {@link #completeAndClaimCallOnShard} says.
     *
     * @throws ShardCountRefusedException as {@link #completeAndClaimOnShard} does
     */
    public ShardTurn shardTurn(String queue, List<Lease> finished, Object reply) {
        Replies.shardCountRefused(reply).ifPresent(recorded -> {
            throw new ShardCountRefusedException("echomq.queues." + queue + ".shards: this engine claims queue '" + queue + "' as "
                    + shards + " shards, but the queue's layout was changed to " + recorded + " since it started "
                    + "(docs/SHARDING.md, \"Changing N\"); it claims nothing: stop it and start it with the new count");
        });
        return new ShardTurn(Replies.completedAndClaimed(queue, finished, reply), Replies.lanesWithWork(reply));
    }

    /** @param shardCount a sharded queue's shard count, checked and answered with the lanes; {@code ""} for neither */
    private ScriptRunner.ScriptCall completeClaimCall(String queue, List<Lease> finished, Duration lease, int maxJobs,
            String workerId, Duration idlePoll, String shardCount) {
        QueueKeys keys = keysOf.apply(queue);
        RequestChecks.lease(lease);
        RequestChecks.range("maxJobs", maxJobs, 0, MAX_CLAIM_JOBS);
        RequestChecks.range("finished", finished.size(), 0, MAX_CLAIM_JOBS);
        RequestChecks.workerId(workerId);
        RequestChecks.nonNegative("idlePoll", idlePoll);
        List<String> args = new ArrayList<>(9 + finished.size() * 3);
        args.addAll(List.of(keys.prefix(), Long.toString(lease.toMillis()), Integer.toString(maxJobs), workerId,
                Integer.toString(promoteBatch), Integer.toString(retention.completedKeepCount()),
                Long.toString(retention.completedMaxAge().toMillis()), Integer.toString(finished.size()),
                Long.toString(idlePoll.toMillis())));
        for (Lease done : finished) {
            if (!done.queue().equals(queue)) {
                throw new InvalidRequestException("finished", "holds a lease of queue '" + done.queue() + "', not '" + queue + "'");
            }
            args.add(RequestChecks.jobId(done.jobId()));
            args.add(Long.toString(done.token()));
            args.add(Long.toString(done.jobCreatedMs()));
        }
        if (!shardCount.isEmpty()) {
            args.add(shardCount);
        }
        return new ScriptRunner.ScriptCall(Script.COMPLETE_CLAIM, keys, null, args);
    }

    /**
     * The heartbeat: the lease runs until the server's now + {@code length}. Fenced by the
     * lease's token and its job's creation time, as {@link #complete} is.
     */
    public LeaseExtension extend(Lease lease, Duration length) {
        return extend(lease, length, null);
    }

    /**
     * The heartbeat, carrying the latest progress the job's handler reported ({@code null}: none
     * since the last beat). The progress is recorded only if the lease is current, with the
     * lease's attempt (a stale lease's report changes nothing).
     */
    @Override
    public LeaseExtension extend(Lease lease, Duration length, Progress progress) {
        QueueKeys keys = keysOf(lease);
        RequestChecks.lease(length);
        Object reply = scripts.run(Script.EXTEND, keys, lease.jobId(),
                List.of(keys.prefix(), lease.jobId(), Long.toString(lease.token()), Long.toString(lease.jobCreatedMs()),
                        Long.toString(length.toMillis()), progress == null ? "" : Integer.toString(progress.percent()),
                        progress == null ? "" : progress.message()));
        return Replies.extended(lease, reply);
    }

    /**
     * The acknowledgement. A stale lease (another token, or a job of another creation time: an
     * id handed out again after a failover) is {@link Rejected} and changes nothing. Completed
     * jobs beyond the {@link QueueSettings#retention() retention} bounds are deleted in the same
     * call (at most two).
     */
    @Override
    public Settlement complete(Lease lease) {
        QueueKeys keys = keysOf(lease);
        Object reply = scripts.run(Script.COMPLETE, keys, lease.jobId(),
                List.of(keys.prefix(), lease.jobId(), Long.toString(lease.token()), Long.toString(lease.jobCreatedMs()),
                        Integer.toString(retention.completedKeepCount()), Long.toString(retention.completedMaxAge().toMillis())));
        return Replies.completed(lease, reply);
    }

    /**
     * Reports a failed attempt: the job is retried after {@code backoff} (server clock), or
     * dead-lettered when its attempts are spent or the failure is {@link FailureKind#PERMANENT};
     * a {@link FailureKind#CONTENDED} attempt does not spend one. The error is kept cut to
     * {@value RequestChecks#MAX_ERROR_CHARS} characters. Fenced as {@link #complete} is.
     */
    @Override
    public RetryOutcome retry(Lease lease, String error, Backoff backoff, FailureKind kind) {
        QueueKeys keys = keysOf(lease);
        Object reply = scripts.run(Script.RETRY, keys, lease.jobId(), List.of(keys.prefix(), lease.jobId(),
                Long.toString(lease.token()), Long.toString(lease.jobCreatedMs()), RequestChecks.errorText(error),
                Long.toString(backoff.base().toMillis()), Long.toString(backoff.cap().toMillis()), kind.wireName()));
        return Replies.retried(lease, reply);
    }

    /**
     * Ends an active job whose cancel was requested as cancelled, by the holder of its lease,
     * after its attempt ended without committing its effect. Fenced as {@link #complete} is; a
     * job whose cancel nobody requested is left active ({@link StopOutcome.NotRequested}).
     */
    @Override
    public StopOutcome stop(Lease lease, String reason) {
        QueueKeys keys = keysOf(lease);
        Object reply = scripts.run(Script.STOP, keys, lease.jobId(), List.of(keys.prefix(), lease.jobId(),
                Long.toString(lease.token()), Long.toString(lease.jobCreatedMs()), RequestChecks.errorText(reason)));
        return Replies.stopped(lease, reply);
    }
}
