package io.echomq.bench;

import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Submissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop producer: sends demo charges at a fixed rate whatever the worker does, each
 * timed ones carrying the moment it was sent, so latency counts from the send. Late ticks send
 * what is due as one burst, so the offered rate holds.
 */
final class OpenLoop {

    /**
     * What a run sent, and how far behind its schedule the producer fell at worst; of the jobs
     * sent, {@code unanswered} were in sends Valkey did not answer in time (each may or may not
     * exist: the script may have run, or the connection never got as far as sending it).
     */
    record Sent(int jobs, long maxLateNanos, int unanswered) {
    }

    private OpenLoop() {
    }

    /**
     * Sends at {@code rate} jobs/s until {@code jobs} are sent or {@code limit} has passed; the
     * first {@code untimed} carry no send time.
     */
    static Sent run(QueueClient queue, String queueName, double rate, int jobs, int untimed, Duration limit) {
        long start = System.nanoTime();
        long endNanos = start + limit.toNanos();
        int sent = 0;
        int unanswered = 0;
        long maxLateNanos = 0;
        while (sent < jobs && System.nanoTime() - endNanos < 0) {
            long now = System.nanoTime();
            int due = (int) Math.min(jobs, (long) ((now - start) / 1e9 * rate) + 1);
            long firstDueAt = start + (long) (sent / rate * 1e9);
            if (due <= sent) {
                LockSupport.parkNanos(firstDueAt - now);
                continue;
            }
            // Latency counts from the send; how late the producer got says what that leaves out.
            maxLateNanos = Math.max(maxLateNanos, now - firstDueAt);
            List<NewJob> burst = new ArrayList<>(due - sent);
            for (int i = sent; i < due && burst.size() < Submissions.MAX_BATCH_JOBS; i++) {
                burst.add(NewJob.of(i < untimed ? Workload.charge(i) : Workload.timedCharge(i)));
            }
            try {
                send(queue, queueName, burst);
            } catch (QueueUnavailableException e) {
                // An overloaded machine can stall Valkey past the client's read timeout, during
                // the script's reply or a new connection's handshake. The load must go on being
                // offered: a producer that stopped here would leave the run measuring an idle engine.
                unanswered += burst.size();
                System.err.println("open loop: a send of " + burst.size() + " jobs was not answered, going on: " + e.getMessage());
            }
            sent += burst.size();
        }
        return new Sent(sent, maxLateNanos, unanswered);
    }

    private static void send(QueueClient queue, String queueName, List<NewJob> burst) {
        if (burst.size() == 1) {
            queue.submissions().enqueue(queueName, burst.get(0));
        } else {
            queue.submissions().enqueueBatch(queueName, burst);
        }
    }
}
