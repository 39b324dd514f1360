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
import io.echomq.queue.internal.ScriptRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker's part of a sharded queue (docs/SHARDING.md, section 5), with the calls of
 * {@link Leases}, so a worker loop need not know that shards exist. A claim's budget is split
 * over the shards by their lanes with work ({@link ClaimSplit}), so lanes spread unevenly over the
 * shards still get equal shares; the shards are asked for their parts all at once
 * ({@link ScriptRunner#runTogether}: one round trip, not one per shard), listed from a shard one
 * further at each call, and what some could not fill goes to those that filled theirs, so an
 * empty shard never makes a claim come back empty while another has work. An idle caller's claim
 * goes over every shard, shard 0 last, and books the queue's idle turn on shard 0 when none had
 * work, so idle instances take turns as on an unsharded queue. A settlement goes to the shard its
 * job's id names. Every call on a shard is today's script there, so leases, tokens and fencing are
 * exactly today's. A shard that records another shard count than this client's refuses the claim
 * ({@link ShardCountRefusedException}: the layout was changed while this client ran). Thread-safe.
 */
public final class ShardedLeases implements WorkerLeases {

    private final ShardLayout layout;
    private final List<QueueClient> shards;
    /** Runs the shards' calls of one claim together. */
    private final ScriptRunner scripts;
    /** The shard the next claim starts at; every claiming thread moves it on. */
    private final AtomicInteger turn = new AtomicInteger();
    private final ClaimSplit split;

    ShardedLeases(ShardLayout layout, List<QueueClient> shards, ScriptRunner scripts) {
        this.layout = layout;
        this.shards = shards;
        this.scripts = scripts;
        this.split = new ClaimSplit(shards.size());
    }

    /** Leases up to {@code maxJobs} jobs over the shards in turn (see {@link Leases#claim}). */
    public List<ClaimedJob> claim(String queue, Duration lease, int maxJobs, String workerId) {
        return completeAndClaim(queue, List.of(), lease, maxJobs, workerId).claimed();
    }

    /**
     * Acknowledges {@code finished} on their shards and leases up to {@code maxJobs} jobs over the
     * shards: one {@code complete-claim} per shard asked, carrying that shard's acknowledgements
     * and what the claim still wants. The settlements come back in the order of {@code finished}
     * (see {@link Leases#completeAndClaim}). A caller that is not idle ({@code idlePoll} zero) has
     * its budget split over the shards in turn ({@link #splitOverShards}); an idle one takes the
     * queue's idle turns ({@link #idleClaim}), so N idle instances ask every shard about once per
     * idle poll between them, not N times.
     */
    @Override
    public CompletedAndClaimed completeAndClaim(String queue, List<Lease> finished, Duration lease, int maxJobs, String workerId,
            Duration idlePoll) {
        RequestChecks.range("maxJobs", maxJobs, 0, Leases.MAX_CLAIM_JOBS);
        RequestChecks.range("finished", finished.size(), 0, Leases.MAX_CLAIM_JOBS);
        RequestChecks.nonNegative("idlePoll", idlePoll);
        ShardRound round = new ShardRound(queue, finished, lease, workerId);
        if (idlePoll.isZero()) {
            splitOverShards(round, maxJobs);
        } else {
            idleClaim(round, maxJobs, idlePoll);
        }
        return round.result();
    }

    /**
     * A busy caller's claim: the budget split over the shards by their lanes with work, and every
     * shard with a part (or acknowledgements) asked at once, listed from the rotation cursor; then
     * what they could not fill given, one shard after another, to those that filled all theirs.
     */
    private void splitOverShards(ShardRound round, int maxJobs) {
        int[] quotas = split.quotas(maxJobs);
        int start = Math.floorMod(turn.getAndIncrement(), shards.size());
        int[] claimed = round.askTogether(quotas, start);
        int unfilled = 0;
        for (int shard = 0; shard < shards.size(); shard++) {
            unfilled += quotas[shard] - claimed[shard];
        }
        for (int k = 0; k < shards.size() && unfilled > 0; k++) {
            int shard = (start + k) % shards.size();
            if (claimed[shard] == quotas[shard]) {
                unfilled -= round.ask(shard, unfilled, Duration.ZERO);
            }
        }
    }

    /**
     * An idle caller's claim (docs/SHARDING.md, 5): the shards asked in the order 1, 2, …, N−1, 0,
     * each for all the turn still wants, and shard 0's claim carrying the idle poll only while
     * every other shard came up empty. So the queue's next idle turn is booked on shard 0 (the
     * queue's one {@code idle-turns} key, a single-slot script) exactly when the whole turn found
     * nothing, as an unsharded idle claim books it, and the caller's next claim over every shard
     * waits for that turn. The turn is no lease: each shard's claim leases and fences its jobs as
     * always. The budget is not split by lanes here: a caller whose claims found nothing for an idle
     * poll expects little, and its claim after one that finds work is a busy one, split as usual.
     */
    private void idleClaim(ShardRound round, int maxJobs, Duration idlePoll) {
        for (int k = 1; k <= shards.size(); k++) {
            int shard = k % shards.size();
            int wanted = maxJobs - round.claimedCount();
            if (!round.hasAcknowledgements(shard) && wanted == 0) {
                continue;
            }
            round.ask(shard, wanted, shard == 0 && round.claimedCount() == 0 ? idlePoll : Duration.ZERO);
        }
    }

    /** The acknowledgements one call to {@code shard} carries: their indexes into the caller's list, and the leases. */
    private record Acks(int shard, List<Integer> indexes, List<Lease> leases) {
    }

    /** One call's asks of the shards: the acknowledgements each shard still has to take, and what the asked shards answered. */
    private final class ShardRound {

        private final String queue;
        private final List<Lease> finished;
        private final Duration lease;
        private final String workerId;
        /** Indexes into {@link #finished} by shard; a shard's list is emptied once sent. */
        private final List<List<Integer>> acksOfShard = new ArrayList<>(shards.size());
        private final Settlement[] settlements;
        private final List<ClaimedJob> claimed = new ArrayList<>();
        private Duration untilIdleTurn = Duration.ZERO;

        ShardRound(String queue, List<Lease> finished, Duration lease, String workerId) {
            this.queue = queue;
            this.finished = finished;
            this.lease = lease;
            this.workerId = workerId;
            this.settlements = new Settlement[finished.size()];
            shards.forEach(shard -> acksOfShard.add(new ArrayList<>()));
            for (int i = 0; i < finished.size(); i++) {
                acksOfShard.get(layout.shardOfJob(finished.get(i).jobId())).add(i);
            }
        }

        boolean hasAcknowledgements(int shard) {
            return !acksOfShard.get(shard).isEmpty();
        }

        int claimedCount() {
            return claimed.size();
        }

        /** One {@code complete-claim} on {@code shard} with its acknowledgements not yet sent; returns how many jobs it leased. */
        int ask(int shard, int wanted, Duration idlePoll) {
            Acks acks = takeAcknowledgements(shard);
            return took(acks, shards.get(shard).leases().completeAndClaimOnShard(queue, acks.leases(), lease, wanted, workerId, idlePoll));
        }

        /**
         * One {@code complete-claim} on each shard that is {@code wanted} some jobs or has
         * acknowledgements to take, all run together, listed from {@code start}; returns how many
         * jobs each shard leased (0 for one not asked).
         */
        int[] askTogether(int[] wanted, int start) {
            List<Acks> asked = new ArrayList<>(shards.size());
            List<ScriptRunner.ScriptCall> calls = new ArrayList<>(shards.size());
            for (int k = 0; k < shards.size(); k++) {
                int shard = (start + k) % shards.size();
                if (wanted[shard] == 0 && !hasAcknowledgements(shard)) {
                    continue;
                }
                Acks acks = takeAcknowledgements(shard);
                asked.add(acks);
                calls.add(shards.get(shard).leases().completeAndClaimCallOnShard(queue, acks.leases(), lease, wanted[shard], workerId,
                        Duration.ZERO));
            }
            List<Object> replies = scripts.runTogether(calls);
            int[] claimedOf = new int[shards.size()];
            for (int i = 0; i < asked.size(); i++) {
                Acks acks = asked.get(i);
                claimedOf[acks.shard()] = took(acks, shards.get(acks.shard()).leases().shardTurn(queue, acks.leases(), replies.get(i)));
            }
            return claimedOf;
        }

        /** The acknowledgements {@code shard} still has to take, now counted as sent. */
        private Acks takeAcknowledgements(int shard) {
            List<Integer> indexes = acksOfShard.set(shard, List.of());
            return new Acks(shard, indexes, indexes.stream().map(finished::get).toList());
        }

        /** Records what the call that carried {@code acks} did; returns how many jobs it leased. */
        private int took(Acks acks, Leases.ShardTurn asked) {
            split.lanesWithWork(acks.shard(), asked.lanesWithWork());
            CompletedAndClaimed done = asked.done();
            for (int a = 0; a < acks.indexes().size(); a++) {
                settlements[acks.indexes().get(a)] = done.settlements().get(a);
            }
            claimed.addAll(done.claimed());
            if (!done.untilIdleTurn().isZero()) {
                untilIdleTurn = done.untilIdleTurn();
            }
            return done.claimed().size();
        }

        CompletedAndClaimed result() {
            return new CompletedAndClaimed(List.of(settlements), List.copyOf(claimed), untilIdleTurn);
        }
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
