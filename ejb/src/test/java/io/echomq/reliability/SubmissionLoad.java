package io.echomq.reliability;

import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Uniquely numbered demo jobs submitted one at a time from a thread of their own, at a steady
 * rate, so that faults land while submissions and work are in flight. A submission counts as
 * acknowledged only when {@code enqueue} returned; one that failed (the fault) is not retried:
 * its outcome is unknown, and the checker holds the queue only to what it acknowledged.
 */
final class SubmissionLoad implements AutoCloseable {

    /** Generous, so that jobs redelivered by many faults are never dead-lettered for it. */
    static final int MAX_ATTEMPTS = 50;

    private final List<String> acknowledged = new CopyOnWriteArrayList<>();
    private final AtomicInteger refused = new AtomicInteger();
    private final Thread thread;

    private SubmissionLoad(QueueClient queue, String queueName, int jobs, Duration spread) {
        long pauseNanos = spread.toNanos() / Math.max(1, jobs);
        thread = new Thread(() -> {
            long next = System.nanoTime();
            for (int n = 0; n < jobs && !Thread.currentThread().isInterrupted(); n++) {
                submit(queue, queueName, n);
                next += pauseNanos;
                long wait = next - System.nanoTime();
                if (wait > 0 && !sleep(wait)) {
                    return;
                }
            }
        }, "reliability-submissions");
        thread.setDaemon(true);
    }

    /** Starts submitting {@code jobs} jobs spread evenly over {@code spread}. */
    static SubmissionLoad start(QueueClient queue, String queueName, int jobs, Duration spread) {
        SubmissionLoad load = new SubmissionLoad(queue, queueName, jobs, spread);
        load.thread.start();
        return load;
    }

    /** The demo payload of job number {@code n}: the number makes every submission distinguishable. */
    static String charge(int n) {
        return "{\"account\":\"acct-" + (n % 10) + "\",\"amountCents\":100,\"n\":" + n + "}";
    }

    /**
     * Submits {@code jobs} jobs as fast as one connection can, acknowledged into {@code into};
     * returns submissions per second (the cost of the server's durability settings shows here).
     */
    static long burstPerSecond(QueueClient queue, String queueName, int jobs, List<String> into) {
        long started = System.nanoTime();
        for (int n = 0; n < jobs; n++) {
            into.add(queue.submissions().enqueue(queueName, NewJob.of(charge(-1 - n)).withMaxAttempts(MAX_ATTEMPTS)).id());
        }
        return jobs * 1_000_000_000L / Math.max(1, System.nanoTime() - started);
    }

    private void submit(QueueClient queue, String queueName, int n) {
        try {
            acknowledged.add(queue.submissions().enqueue(queueName, NewJob.of(charge(n)).withMaxAttempts(MAX_ATTEMPTS)).id());
        } catch (RuntimeException unavailable) {
            refused.incrementAndGet();
        }
    }

    private static boolean sleep(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    /** Waits until every job was submitted (or refused). */
    void awaitSubmitted(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            throw new AssertionError("submissions did not finish within " + timeout);
        }
    }

    List<String> acknowledged() {
        return List.copyOf(acknowledged);
    }

    /** Submissions that failed during a fault (their outcome unknown, so not held against the queue). */
    int refused() {
        return refused.get();
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
