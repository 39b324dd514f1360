package io.echomq.maintenance;

import io.echomq.effect.EffectRecord;
import io.echomq.effect.EffectStore;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.JobState;
import io.echomq.queue.QueueReads;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The one rule for which effect rows may go, whether one by one ({@link EffectRetention}) or with
 * their partition ({@link EffectPartitionRetirement}): a row goes only when its job can never be
 * delivered again, and nothing will read it.
 *
 * <p>Valkey no longer holds the job, or holds it completed. The row of a job Valkey still holds in
 * any other state stays, whatever its age: a job whose acknowledgement was lost (dead, delayed,
 * cancelled, paused in pending, leased) must still find its row, or its next attempt would apply
 * the effect again. A flow child's row also stays while Valkey holds its parent unfinished (F7 in
 * docs/ARCHITECTURE.md): the parent's handler reads its children's results from these rows when it
 * runs, so a child's row stays while its parent waits, runs, or may run again (dead or cancelled,
 * until trimmed). The age is the caller's to check.
 */
final class GoneForGood {

    /** Where a queue's jobs are asked for their states (see {@link QueueReads#statesOf}): each job's shard on a sharded queue. */
    interface HeldJobs {
        Map<String, JobState> statesOf(String queue, List<JobIdentity> jobs);
    }

    private final HeldJobs queue;
    private final EffectStore effects;

    GoneForGood(HeldJobs queue, EffectStore effects) {
        this.queue = queue;
        this.effects = effects;
    }

    /** Those of {@code rows} (all of {@code queueName}) that may go; one Valkey read, and one per flow parent queue. */
    List<EffectRecord> of(String queueName, List<EffectRecord> rows) {
        if (rows.isEmpty()) {
            return rows;
        }
        Map<String, JobState> held = queue.statesOf(queueName,
                rows.stream().map(r -> new JobIdentity(queueName, r.jobId(), r.jobCreatedMs(), null)).toList());
        List<EffectRecord> finished = rows.stream()
                .filter(r -> held.getOrDefault(r.jobId(), JobState.COMPLETED) == JobState.COMPLETED)
                .toList();
        return withoutChildrenOfUnfinishedParents(queueName, finished);
    }

    /** {@code rows} less those of flow children whose parent Valkey still holds unfinished. The parent may live on another queue. */
    private List<EffectRecord> withoutChildrenOfUnfinishedParents(String queueName, List<EffectRecord> rows) {
        Map<String, JobIdentity> parents = effects.flowParentsOf(queueName, rows);
        if (parents.isEmpty()) {
            return rows;
        }
        Map<String, Map<String, JobState>> parentStates = new HashMap<>();
        parents.values().stream().collect(Collectors.groupingBy(JobIdentity::queue))
                .forEach((parentQueue, ofQueue) -> parentStates.put(parentQueue, queue.statesOf(parentQueue, ofQueue)));
        return rows.stream().filter(row -> {
            JobIdentity parent = parents.get(row.jobId());
            return parent == null
                    || parentStates.get(parent.queue()).getOrDefault(parent.jobId(), JobState.COMPLETED) == JobState.COMPLETED;
        }).toList();
    }
}
