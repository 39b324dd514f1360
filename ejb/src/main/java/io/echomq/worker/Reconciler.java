package io.echomq.worker;

import io.echomq.effect.EffectRecord;
import io.echomq.effect.EffectStore;
import io.echomq.queue.JobState;
import io.echomq.queue.ManualTransition;
import io.echomq.queue.QueueClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Completes jobs whose effect committed but which did not end completed: their worker died
 * after the effect and before the acknowledgement, and the job was since dead-lettered (its
 * attempts ran out while the effect was already in), delayed by a retry, or cancelled
 * (DESIGN.md, invariant 6). Each completed job carries a note that says why.
 *
 * <p>Walks the dead, cancelled and delayed sets a batch per pass with a cursor per set, so a
 * large set is covered over several passes and each pass stays short. Pending jobs need no
 * pass: their next claim finds the effect, skips the handler and completes them.
 */
final class Reconciler {

    private static final List<JobState> SCANNED = List.of(JobState.DEAD, JobState.CANCELLED, JobState.DELAYED);

    private final QueueClient queue;
    private final EffectStore effects;
    /** Last score seen per queue and set; written and read by the maintenance thread only. */
    private final Map<String, Long> cursors = new ConcurrentHashMap<>();

    Reconciler(QueueClient queue, EffectStore effects) {
        this.queue = queue;
        this.effects = effects;
    }

    /** One batch of each scanned set of {@code queueName}; returns how many jobs were completed. */
    int reconcile(String queueName, int batch) {
        int completed = 0;
        for (JobState state : SCANNED) {
            String cursorKey = queueName + "/" + state;
            List<Map.Entry<String, Long>> ids = queue.idsInState(queueName, state, cursors.getOrDefault(cursorKey, -1L), batch);
            // At the end of a set the cursor wraps, so later additions are seen on the next walk.
            cursors.put(cursorKey, ids.size() < batch ? -1L : ids.get(ids.size() - 1).getValue());
            // A row may belong to an earlier job that had the same id; the script completes only the job the row names.
            for (EffectRecord effect : effects.findAll(queueName, ids.stream().map(Map.Entry::getKey).toList())) {
                String reason = "completed by the reconciler: its effect was applied by attempt " + effect.attempt()
                        + " at " + effect.appliedAt() + ", but the job was " + state.wireName();
                if (queue.reconcile(queueName, effect.jobId(), effect.jobCreatedMs(), reason) instanceof ManualTransition.Moved) {
                    completed++;
                }
            }
        }
        return completed;
    }
}
