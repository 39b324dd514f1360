package io.echomq.worker;

import io.echomq.queue.ClaimedJob;
import java.util.List;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Jobs one runner thread is working on (one, or a batch), as the {@link LeaseKeeper} sees them:
 * when they started, when their leases were last extended, which of them still hold a lease.
 */
final class RunningWork {

    private final Thread runner = Thread.currentThread();
    private final long startedNanos = System.nanoTime();
    /** By job id: a job record's own hash would run over its whole payload. */
    private final Map<String, ClaimedJob> leased = new ConcurrentHashMap<>();
    private volatile long extendedNanos = startedNanos;
    private boolean finished;
    private boolean timedOut;

    RunningWork(List<ClaimedJob> jobs) {
        jobs.forEach(job -> leased.put(job.id(), job));
    }

    long startedNanos() {
        return startedNanos;
    }

    long extendedNanos() {
        return extendedNanos;
    }

    void extendedAt(long nanos) {
        extendedNanos = nanos;
    }

    /** The jobs whose leases are still ours to keep alive. */
    Collection<ClaimedJob> leased() {
        return leased.values();
    }

    void leaseLost(ClaimedJob job) {
        leased.remove(job.id());
    }

    /**
     * Past the hard timeout: stop keeping the leases and interrupt the runner, unless it
     * already finished (an interrupt then would hit its next job).
     */
    synchronized void timeOut() {
        if (!finished) {
            timedOut = true;
            leased.clear();
            runner.interrupt();
        }
    }

    synchronized boolean timedOut() {
        return timedOut;
    }

    /** Called by the runner when the work is settled; clears an interrupt that raced with it. */
    synchronized void finish() {
        finished = true;
        leased.clear();
        Thread.interrupted();
    }
}
