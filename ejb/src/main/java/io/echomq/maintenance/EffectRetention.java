package io.echomq.maintenance;

import io.echomq.effect.EffectRecord;
import io.echomq.effect.EffectStore;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.JobState;
import io.echomq.queue.QueueClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Deletes effect rows older than the retention age, in bounded batches, so the effect table
 * stays bounded at any sustained rate (invariant 9).
 *
 * <p>Invariant: a row goes only when its job can never be delivered again: Valkey no longer
 * holds the job, or holds it completed. The row of a job Valkey still holds in any other state
 * stays, whatever its age: a job whose acknowledgement was lost (dead, delayed, cancelled,
 * paused in pending, leased) must still find its row, or its next attempt would apply the
 * effect again. The age is never shorter than the idempotency window (checked where it is
 * configured), so a row still names its idempotency key for as long as the key names one effect.
 */
final class EffectRetention implements MaintenanceDuty {

    private final QueueClient queue;
    private final EffectStore effects;
    private final Duration interval;
    private final Duration age;
    private final int batch;
    /** Per queue, the last row kept by the walk so far: the next batch starts after it. Used by the maintenance thread only. */
    private final Map<String, EffectRecord> keptUpTo = new ConcurrentHashMap<>();

    EffectRetention(QueueClient queue, EffectStore effects, Duration interval, Duration age, int batch) {
        this.queue = queue;
        this.effects = effects;
        this.interval = interval;
        this.age = age;
        this.batch = batch;
    }

    @Override
    public String name() {
        return "effect-retention";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    /**
     * Batches until the rows past the age are all seen, so deletion keeps pace with any rate of
     * new rows (a fixed number of batches per run fell behind at about 330 rows a second). A run
     * stops at half its interval at the latest, leaving a backlog to the next one, so it never
     * holds the database busy without a pause.
     */
    @Override
    public Pass runOnce(String queueName) {
        int deleted = 0;
        long deadline = System.nanoTime() + interval.toNanos() / 2;
        while (System.nanoTime() < deadline) {
            List<EffectRecord> old = effects.appliedBefore(queueName, age, keptUpTo.get(queueName), batch);
            Map<String, JobState> held = queue.statesOf(queueName,
                    old.stream().map(r -> new JobIdentity(queueName, r.jobId(), r.jobCreatedMs(), null)).toList());
            Map<Boolean, List<EffectRecord>> byFinished = old.stream().collect(Collectors.partitioningBy(
                    r -> held.getOrDefault(r.jobId(), JobState.COMPLETED) == JobState.COMPLETED));
            deleted += effects.forget(queueName, byFinished.get(true));
            // Kept rows are stepped over; at the end the walk starts over, for kept jobs that finished since.
            List<EffectRecord> kept = byFinished.get(false);
            if (old.size() < batch) {
                keptUpTo.remove(queueName);
                break;
            }
            if (!kept.isEmpty()) {
                keptUpTo.put(queueName, kept.get(kept.size() - 1));
            }
        }
        return new Pass(0, 0, 0, 0, deleted, 0);
    }
}
