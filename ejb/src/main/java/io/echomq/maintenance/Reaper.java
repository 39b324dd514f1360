package io.echomq.maintenance;

import io.echomq.queue.QueueAdmin;
import io.echomq.queue.ReapResult;
import java.time.Duration;

/**
 * Returns expired leases to pending, dead-letters jobs whose attempts are spent, and cancels
 * jobs whose cancel was requested: the recovery that makes delivery at-least-once. The one way a job leaves the active state
 * without its worker.
 */
final class Reaper implements MaintenanceDuty {

    /** Script calls per run and queue: bounds a run while a mass expiry is drained over several. */
    static final int MAX_CALLS_PER_RUN = 10;

    private final QueueAdmin queue;
    private final Duration interval;
    private final int batch;

    Reaper(QueueAdmin queue, Duration interval, int batch) {
        this.queue = queue;
        this.interval = interval;
        this.batch = batch;
    }

    @Override
    public String name() {
        return "reaper";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    @Override
    public Pass runOnce(String queueName) {
        int toPending = 0;
        int toDead = 0;
        int toCancelled = 0;
        for (int call = 0; call < MAX_CALLS_PER_RUN; call++) {
            ReapResult reaped = queue.reap(queueName, batch);
            toPending += reaped.toPending();
            toDead += reaped.toDead();
            toCancelled += reaped.toCancelled();
            if (reaped.total() < batch) {
                break;
            }
        }
        return Pass.reaped(toPending, toDead, toCancelled);
    }
}
