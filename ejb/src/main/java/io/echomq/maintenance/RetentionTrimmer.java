package io.echomq.maintenance;

import io.echomq.queue.QueueClient;
import io.echomq.queue.Retention;
import java.time.Duration;

/** Deletes finished jobs (completed, cancelled, dead) beyond the retention bounds, in bounded batches. */
final class RetentionTrimmer implements MaintenanceDuty {

    private final QueueClient queue;
    private final Duration interval;
    private final Retention retention;

    RetentionTrimmer(QueueClient queue, Duration interval, Retention retention) {
        this.queue = queue;
        this.interval = interval;
        this.retention = retention;
    }

    @Override
    public String name() {
        return "retention";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    @Override
    public Pass runOnce(String queueName) {
        return Pass.trimmed(queue.trim(queueName, retention).total());
    }
}
