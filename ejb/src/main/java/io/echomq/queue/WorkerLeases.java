package io.echomq.queue;

import java.time.Duration;
import java.util.List;

/**
 * The calls a worker makes on its queue: its turn's acknowledgements and claim, heartbeats and
 * settlements. {@link Leases} answers them on one queue's keys, and a sharded queue's leases
 * ({@code io.echomq.queue.shard.ShardedLeases}) over its shards, so the worker loop is the same
 * whether or not its queue is sharded (docs/SHARDING.md, 5). Every call on a lease is fenced by its
 * token and its job's creation time (invariant 4).
 */
public interface WorkerLeases {

    /** {@link #completeAndClaim(String, List, Duration, int, String, Duration)} by a caller that is not idle (no idle turn). */
    default CompletedAndClaimed completeAndClaim(String queue, List<Lease> finished, Duration lease, int maxJobs, String workerId) {
        return completeAndClaim(queue, finished, lease, maxJobs, workerId, Duration.ZERO);
    }

    /** See {@link Leases#completeAndClaim(String, List, Duration, int, String, Duration)}: an idle caller takes the queue's idle turns. */
    CompletedAndClaimed completeAndClaim(String queue, List<Lease> finished, Duration lease, int maxJobs, String workerId,
            Duration idlePoll);

    /** See {@link Leases#extend(Lease, Duration, Progress)}. */
    LeaseExtension extend(Lease lease, Duration length, Progress progress);

    /** See {@link Leases#complete}. */
    Settlement complete(Lease lease);

    /** See {@link Leases#retry}. */
    RetryOutcome retry(Lease lease, String error, Backoff backoff, FailureKind kind);

    /** See {@link Leases#stop}. */
    StopOutcome stop(Lease lease, String reason);

    /** See {@link Leases#flowChildren}. */
    List<FlowChild> flowChildren(Lease lease);
}
