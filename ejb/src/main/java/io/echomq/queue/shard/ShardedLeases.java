package io.echomq.queue.shard;

import io.echomq.queue.Backoff;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.FailureKind;
import io.echomq.queue.FlowChild;
import io.echomq.queue.Lease;
import io.echomq.queue.LeaseExtension;
import io.echomq.queue.Leases;
import io.echomq.queue.Progress;
import io.echomq.queue.QueueClient;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.Settlement;
import io.echomq.queue.StopOutcome;
import io.echomq.queue.WorkerLeases;
import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker's part of a sharded queue (docs/SHARDING.md, section 5), with the calls of
 * {@link Leases}, so a worker loop need not know that shards exist. A claim's budget is split
 * over the shards by their lanes with work ({@link ClaimSplit}), so lanes spread unevenly over the
 * shards still get equal shares; the shards are asked in turn, starting one shard further at each
 * call, and what one shard could not fill of its part goes to the next, so an empty shard never
 * makes a claim come back empty while another has work. A settlement goes to the shard its job's id names. Every call on a
 * shard is today's script there, so leases, tokens and fencing are exactly today's. A shard that
 * records another shard count than this client's refuses the claim ({@link ShardCountRefusedException}:
 * the layout was changed while this client ran). Thread-safe.
 */
public final class ShardedLeases implements WorkerLeases {

    private final ShardLayout layout;
    private final List<QueueClient> shards;
    /** The shard the next claim starts at; every claiming thread moves it on. */
    private final AtomicInteger turn = new AtomicInteger();
    private final ClaimSplit split;

    ShardedLeases(ShardLayout layout, List<QueueClient> shards) {
        this.layout = layout;
        this.shards = shards;
        this.split = new ClaimSplit(shards.size());
    }

    /** Leases up to {@code maxJobs} jobs over the shards in turn (see {@link Leases#claim}). */
    public List<ClaimedJob> claim(String queue, Duration lease, int maxJobs, String workerId) {
        return completeAndClaim(queue, List.of(), lease, maxJobs, workerId).claimed();
    }

    /**
     * Acknowledges {@code finished} on their shards and leases up to {@code maxJobs} jobs over the
     * shards in turn: one {@code complete-claim} per shard asked, carrying that shard's
     * acknowledgements and what the claim still wants. The settlements come back in the order of
     * {@code finished} (see {@link Leases#completeAndClaim}). The idle poll is not used: the idle
     * turns are one queue's, and a sharded queue's idle workers back off each on its own (so N idle
     * instances poll N times as often, as unsharded ones did before the turns).
     */
    @Override
    public CompletedAndClaimed completeAndClaim(String queue, List<Lease> finished, Duration lease, int maxJobs, String workerId,
            Duration idlePoll) {
        RequestChecks.range("maxJobs", maxJobs, 0, Leases.MAX_CLAIM_JOBS);
        RequestChecks.range("finished", finished.size(), 0, Leases.MAX_CLAIM_JOBS);
        List<List<Integer>> acksOfShard = new ArrayList<>(shards.size());
        shards.forEach(shard -> acksOfShard.add(new ArrayList<>()));
        for (int i = 0; i < finished.size(); i++) {
            acksOfShard.get(layout.shardOfJob(finished.get(i).jobId())).add(i);
        }
        Settlement[] settlements = new Settlement[finished.size()];
        List<ClaimedJob> claimed = new ArrayList<>();
        int[] quotas = split.quotas(maxJobs);
        int start = Math.floorMod(turn.getAndIncrement(), shards.size());
        int unfilled = 0;
        boolean[] drained = new boolean[shards.size()];
        // Two laps: the first asks each shard for its part (and what the shards before it could not
        // fill); the second gives what is still unfilled to the shards that filled all they were asked.
        for (int k = 0; k < 2 * shards.size(); k++) {
            int shard = (start + k) % shards.size();
            boolean firstLap = k < shards.size();
            List<Integer> acks = firstLap ? acksOfShard.get(shard) : List.of();
            int wanted = (firstLap ? quotas[shard] : 0) + unfilled;
            if (acks.isEmpty() && (wanted == 0 || drained[shard])) {
                continue;
            }
            Leases.ShardTurn asked = shards.get(shard).leases().completeAndClaimOnShard(queue,
                    acks.stream().map(finished::get).toList(), lease, wanted, workerId);
            split.lanesWithWork(shard, asked.lanesWithWork());
            CompletedAndClaimed done = asked.done();
            for (int a = 0; a < acks.size(); a++) {
                settlements[acks.get(a)] = done.settlements().get(a);
            }
            claimed.addAll(done.claimed());
            unfilled = wanted - done.claimed().size();
            drained[shard] = unfilled > 0;
        }
        return new CompletedAndClaimed(List.of(settlements), List.copyOf(claimed));
    }

    /** The heartbeat, on the job's shard (see {@link Leases#extend(Lease, Duration, Progress)}). */
    @Override
    public LeaseExtension extend(Lease lease, Duration length, Progress progress) {
        return shardOf(lease).extend(lease, length, progress);
    }

    /** The acknowledgement, on the job's shard (see {@link Leases#complete}). */
    @Override
    public Settlement complete(Lease lease) {
        return shardOf(lease).complete(lease);
    }

    /** A failed attempt, on the job's shard (see {@link Leases#retry}). */
    @Override
    public RetryOutcome retry(Lease lease, String error, Backoff backoff, FailureKind kind) {
        return shardOf(lease).retry(lease, error, backoff, kind);
    }

    /** A cancelled attempt's end, on the job's shard (see {@link Leases#stop}). */
    @Override
    public StopOutcome stop(Lease lease, String reason) {
        return shardOf(lease).stop(lease, reason);
    }

    /** A flow parent's children, read where its job's shard reads them (see {@link Leases#flowChildren}). */
    @Override
    public List<FlowChild> flowChildren(Lease lease) {
        return shardOf(lease).flowChildren(lease);
    }

    private Leases shardOf(Lease lease) {
        RequestChecks.leaseFields(lease);
        return shards.get(layout.shardOfJob(lease.jobId())).leases();
    }
}
