package io.echomq.worker;

import io.echomq.queue.ClaimedJob;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Leased jobs as the {@link LeaseKeeper} sees them, from the turn that leased them until they
 * are settled: which still hold a lease of ours, when it was last extended, and, once a runner
 * started on them, which thread runs them and since when.
 *
 * <p>Invariant: a job is kept alive by at most one RunningWork at a time, and only the runner
 * that started the work can be interrupted for it.
 */
final class RunningWork {

    private final List<ClaimedJob> jobs;
    /** By job id: a job record's own hash would run over its whole payload. */
    private final Map<String, ClaimedJob> leased = new ConcurrentHashMap<>();
    /** Each job's signals from its handler, by job id; fixed at construction. */
    private final Map<String, JobSignalSlot> signals;
    /** When the leases were last extended (nanoTime); first, when the claim that leased them was sent. */
    private volatile long extendedNanos;
    /** The runner and when it started; null and 0 while the work waits (no hard timeout then). Guarded by this. */
    private Thread runner;
    private long startedNanos;
    private boolean finished;
    private boolean timedOut;
    /** What else stops the work at its timeout besides the interrupt (cancelling its SQL); null for none. Guarded by this. */
    private Runnable onTimeout;

    RunningWork(List<ClaimedJob> jobs, long leasedAtNanos) {
        this(jobs, leasedAtNanos, null);
    }

    /** Work over {@code jobs} whose signals carry on from {@code from} (a job of a failed batch, run alone). */
    RunningWork(List<ClaimedJob> jobs, long leasedAtNanos, RunningWork from) {
        this.jobs = List.copyOf(jobs);
        jobs.forEach(job -> leased.put(job.id(), job));
        this.extendedNanos = leasedAtNanos;
        Map<String, JobSignalSlot> slots = new java.util.HashMap<>();
        jobs.forEach(job -> slots.put(job.id(), from == null ? new JobSignalSlot() : from.signals(job)));
        this.signals = Map.copyOf(slots);
    }

    /** The signals of one of this work's jobs. */
    JobSignalSlot signals(ClaimedJob job) {
        return signals.get(job.id());
    }

    /** The calling thread starts on the work: from now on the hard timeout counts. */
    synchronized void start() {
        runner = Thread.currentThread();
        startedNanos = System.nanoTime();
    }

    /**
     * Also run {@code stop} when the work times out: an interrupt does not stop a thread blocked
     * in a JDBC call, and its transaction would hold the job's effect key.
     */
    synchronized void onTimeout(Runnable stop) {
        onTimeout = stop;
    }

    /** The work waits again (its jobs run one by one elsewhere): its leases are kept, no timeout counts. */
    synchronized void pause() {
        runner = null;
    }

    /** Every job of the work, as leased, in claim order. */
    List<ClaimedJob> jobs() {
        return jobs;
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

    /** The job's lease is not ours to keep any more: it was lost, settled, or handed to other work. */
    void drop(ClaimedJob job) {
        leased.remove(job.id());
    }

    /**
     * Past the hard timeout of a started work: stop keeping its leases and interrupt the
     * runner, unless it already finished (an interrupt then would hit its next job).
     *
     * @return whether the work timed out now
     */
    synchronized boolean timeOutIfPast(long nowNanos, long timeoutNanos) {
        if (runner == null || finished || timedOut || nowNanos - startedNanos < timeoutNanos) {
            return false;
        }
        timedOut = true;
        leased.clear();
        runner.interrupt();
        if (onTimeout != null) {
            onTimeout.run();
        }
        return true;
    }

    synchronized boolean timedOut() {
        return timedOut;
    }

    /** Called by the runner when the work is settled; clears an interrupt that raced with it. */
    synchronized void finish() {
        finished = true;
        leased.clear();
        if (runner == Thread.currentThread()) {
            Thread.interrupted();
        }
    }
}
