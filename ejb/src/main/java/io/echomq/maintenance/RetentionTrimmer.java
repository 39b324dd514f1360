package io.echomq.maintenance;

import io.echomq.queue.QueueAdmin;
import io.echomq.queue.Retention;
import java.time.Duration;

/** Deletes finished jobs (completed, cancelled, dead) beyond the retention bounds, in bounded batches. */
final class RetentionTrimmer implements MaintenanceDuty {

    private final QueueAdmin queue;
    private final Duration interval;
    private final Retention retention;

    RetentionTrimmer(QueueAdmin queue, Duration interval, Retention retention) {
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
