package io.echomq.worker;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a worker's free runners wait: for work another runner's turn leased for them, and, one
 * runner at a time, for the next turn to come due (the watch). Only the watcher wakes on the
 * clock; the others sleep until they are handed work, a stop, or the watch. So an idle queue
 * with many runners wakes one thread per idle poll, not every runner (issue 39: a worker
 * instance's idle cost is paid by every instance added).
 *
 * <p>Invariant: while any runner sleeps {@linkplain #awaitOffWatch off the watch}, a runner
 * holds the watch, or a wake-up is queued that sends a sleeper to take it. Every way of leaving
 * the watch, and every return of a runner with work (it may have consumed a wake-up meant to
 * hand the watch on), ends in {@link #ensureWatched}; a runner going to sleep counts itself a
 * sleeper before it looks whether the watch is free. Either the one leaving sees the sleeper,
 * or the sleeper sees the free watch.
 */
final class RunnerWaits {

    /** Not work: wakes a sleeping runner to look again (the watch is free, or the worker stops). */
    private static final RunningWork WAKE_UP = new RunningWork(List.of(), 0);

    /** Work leased for free runners by another runner's turn, and wake-ups. */
    private final BlockingQueue<RunningWork> ready = new LinkedBlockingQueue<>();
    private final Semaphore watch = new Semaphore(1);
    private final AtomicInteger sleepers = new AtomicInteger();

    /** Work a turn leased for free runners: each wakes one. */
    void handOut(List<RunningWork> portions) {
        ready.addAll(portions);
    }

    /**
     * Work handed out, if any, without waiting. Consumes at most one wake-up, as the runner it
     * was meant for would: each runner looks again after it, so the wake-ups of a stop reach
     * every runner however they are shared out.
     */
    RunningWork poll() {
        RunningWork work = ready.poll();
        return work == WAKE_UP ? null : work;
    }

    /** Takes the watch if nobody holds it. */
    boolean takeWatch() {
        return watch.tryAcquire();
    }

    /** The watcher stops watching (it has work, or it stops): a sleeper takes the watch over. */
    void leaveWatch() {
        watch.release();
        ensureWatched();
    }

    /** Sleepers and nobody watching: one is woken to take the watch. */
    void ensureWatched() {
        if (sleepers.get() > 0 && watch.availablePermits() > 0) {
            ready.offer(WAKE_UP);
        }
    }

    /** The watcher waits up to {@code nanos} (until the turn is due) for work; null if none came. */
    RunningWork awaitWatching(long nanos) throws InterruptedException {
        RunningWork work = ready.poll(nanos, TimeUnit.NANOSECONDS);
        return work == WAKE_UP ? null : work;
    }

    /**
     * A runner that is not watching waits up to {@code nanos} for work; null when woken without
     * any (to take the watch, or to see a stop) or when the watch is free to take now.
     * {@code nanos} only bounds the harm of a wake-up this class failed to send.
     */
    RunningWork awaitOffWatch(long nanos) throws InterruptedException {
        sleepers.incrementAndGet();
        try {
            if (watch.availablePermits() > 0) {
                return null;
            }
            RunningWork work = ready.poll(nanos, TimeUnit.NANOSECONDS);
            return work == WAKE_UP ? null : work;
        } finally {
            sleepers.decrementAndGet();
        }
    }

    /** Wakes up to {@code runners} sleeping runners: the worker stops. */
    void wakeAll(int runners) {
        for (int i = 0; i < runners; i++) {
            ready.offer(WAKE_UP);
        }
    }
}
