package io.echomq.worker;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.LeaseExtension;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Rejected;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Extends a running job's lease at a fixed interval until stopped, so a long handler keeps its
 * job. Stops by itself when the queue says the lease is gone (the job was reaped).
 */
final class Heartbeat {

    private static final Logger LOG = Logger.getLogger(Heartbeat.class.getName());

    private final QueueClient queue;
    private final ClaimedJob job;
    private final Duration lease;
    private final WorkerListener listener;
    private volatile ScheduledFuture<?> ticks;

    private Heartbeat(QueueClient queue, ClaimedJob job, Duration lease, WorkerListener listener) {
        this.queue = queue;
        this.job = job;
        this.lease = lease;
        this.listener = listener;
    }

    static Heartbeat start(ScheduledExecutorService timers, QueueClient queue, ClaimedJob job, WorkerSettings settings,
            WorkerListener listener) {
        Heartbeat heartbeat = new Heartbeat(queue, job, settings.lease(), listener);
        long every = settings.heartbeatInterval().toMillis();
        heartbeat.ticks = timers.scheduleAtFixedRate(heartbeat::beat, every, every, TimeUnit.MILLISECONDS);
        return heartbeat;
    }

    void stop() {
        ScheduledFuture<?> current = ticks;
        if (current != null) {
            current.cancel(false);
        }
    }

    private void beat() {
        try {
            LeaseExtension extension = queue.extend(job.lease(), lease);
            if (extension instanceof Rejected rejected) {
                stop();
                listener.leaseLost(job, rejected);
            }
        } catch (QueueUnavailableException e) {
            // The next beat tries again; if none gets through, the lease expires and the job is reaped.
            LOG.log(Level.WARNING, "heartbeat of job {0} on queue ''{1}'' failed: {2}",
                    new Object[] {job.id(), job.lease().queue(), e.getMessage()});
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "heartbeat of job " + job.id() + " failed unexpectedly", e);
        }
    }
}
