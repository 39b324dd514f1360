package io.echomq.worker;

import io.echomq.queue.Backoff;
import io.echomq.queue.Leases;
import java.time.Duration;

/**
 * How one queue's worker runs. Checked when built; the message names the setting.
 *
 * @param concurrency       jobs handled at once (drain loops)
 * @param lease             lease length per claim; a worker silent this long loses the job
 * @param heartbeatInterval how often a running job's lease is extended (a fraction of the lease)
 * @param jobTimeout        hard limit per job: past it the handler is interrupted and the
 *                          attempt fails, heartbeat or not
 * @param backoff           delay before a failed job's next attempt
 * @param idlePoll          longest wait between claims when the queue stays empty (the wait
 *                          starts at 1 ms and doubles up to this)
 * @param batchSize         for a {@link io.echomq.handler.BatchJobHandler}: most jobs per
 *                          transaction (1 = one transaction per job); plain handlers ignore it
 * @param leaseAhead        whether short jobs may be leased ahead of a free runner ({@link LeaseAhead});
 *                          off where a runner stands for a consumer that must not be handed more
 *                          jobs than it can take (the resource adapter's message endpoints)
 * @param batchLinger       for batches: how long the next claim waits after one that found the
 *                          queue caught up (fewer jobs than it asked for), so the jobs arriving
 *                          meanwhile go into one transaction instead of many small ones
 *                          ({@link IdlePacer}); zero turns it off
 */
public record WorkerSettings(
        int concurrency,
        Duration lease,
        Duration heartbeatInterval,
        Duration jobTimeout,
        Backoff backoff,
        Duration idlePoll,
        int batchSize,
        boolean leaseAhead,
        Duration batchLinger) {

    /** The linger by default; figures in bench/RESULTS.md ("The batched tail"). */
    public static final Duration DEFAULT_BATCH_LINGER = Duration.ofMillis(5);
    /** Every job of a caught-up queue may wait this long more: beyond it the linger is a delay, not a batching. */
    public static final Duration MAX_BATCH_LINGER = Duration.ofSeconds(1);

    public static final WorkerSettings DEFAULT = new WorkerSettings(4, Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofMinutes(5), Backoff.DEFAULT, Duration.ofMillis(200), 100, true, DEFAULT_BATCH_LINGER);

    public WorkerSettings {
        if (concurrency < 1 || concurrency > 1_000) {
            throw new IllegalArgumentException("concurrency must be between 1 and 1000, was " + concurrency);
        }
        positive("lease", lease);
        positive("heartbeatInterval", heartbeatInterval);
        positive("jobTimeout", jobTimeout);
        positive("idlePoll", idlePoll);
        if (batchSize < 1 || batchSize > Leases.MAX_CLAIM_JOBS) {
            throw new IllegalArgumentException("batchSize must be between 1 and " + Leases.MAX_CLAIM_JOBS
                    + ", was " + batchSize);
        }
        if (batchLinger == null || batchLinger.isNegative() || batchLinger.compareTo(MAX_BATCH_LINGER) > 0) {
            throw new IllegalArgumentException("batchLinger must be between 0 and " + MAX_BATCH_LINGER.toMillis() + " ms, was "
                    + (batchLinger == null ? null : batchLinger.toMillis() + " ms"));
        }
        if (backoff == null) {
            throw new IllegalArgumentException("backoff is required");
        }
        // Two heartbeats must fit in one lease, or a single slow extend loses the job.
        if (heartbeatInterval.multipliedBy(2).compareTo(lease) > 0) {
            throw new IllegalArgumentException("heartbeatInterval (" + heartbeatInterval.toMillis()
                    + " ms) must be at most half the lease (" + lease.toMillis() + " ms)");
        }
    }

    /** Settings that lease ahead, with the default linger. */
    public WorkerSettings(int concurrency, Duration lease, Duration heartbeatInterval, Duration jobTimeout, Backoff backoff,
            Duration idlePoll, int batchSize) {
        this(concurrency, lease, heartbeatInterval, jobTimeout, backoff, idlePoll, batchSize, true, DEFAULT_BATCH_LINGER);
    }

    /** The same settings with another lease and a heartbeat at a third of it. */
    public WorkerSettings withLease(Duration newLease) {
        return new WorkerSettings(concurrency, newLease, newLease.dividedBy(3), jobTimeout, backoff, idlePoll, batchSize, leaseAhead, batchLinger);
    }

    public WorkerSettings withConcurrency(int n) {
        return new WorkerSettings(n, lease, heartbeatInterval, jobTimeout, backoff, idlePoll, batchSize, leaseAhead, batchLinger);
    }

    public WorkerSettings withJobTimeout(Duration timeout) {
        return new WorkerSettings(concurrency, lease, heartbeatInterval, timeout, backoff, idlePoll, batchSize, leaseAhead, batchLinger);
    }

    public WorkerSettings withBackoff(Backoff newBackoff) {
        return new WorkerSettings(concurrency, lease, heartbeatInterval, jobTimeout, newBackoff, idlePoll, batchSize, leaseAhead, batchLinger);
    }

    public WorkerSettings withIdlePoll(Duration poll) {
        return new WorkerSettings(concurrency, lease, heartbeatInterval, jobTimeout, backoff, poll, batchSize, leaseAhead, batchLinger);
    }

    private static void positive(String field, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(field + " must be a positive duration, was " + value);
        }
    }

    public WorkerSettings withBatchSize(int jobs) {
        return new WorkerSettings(concurrency, lease, heartbeatInterval, jobTimeout, backoff, idlePoll, jobs, leaseAhead, batchLinger);
    }

    public WorkerSettings withLeaseAhead(boolean ahead) {
        return new WorkerSettings(concurrency, lease, heartbeatInterval, jobTimeout, backoff, idlePoll, batchSize, ahead, batchLinger);
    }

    public WorkerSettings withBatchLinger(Duration linger) {
        return new WorkerSettings(concurrency, lease, heartbeatInterval, jobTimeout, backoff, idlePoll, batchSize, leaseAhead, linger);
    }
}
