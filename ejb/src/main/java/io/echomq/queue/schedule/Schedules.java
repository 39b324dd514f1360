package io.echomq.queue.schedule;

import io.echomq.queue.InvalidRequestException;
import java.util.List;
import java.util.Optional;

/**
 * A queue's schedules, whatever its layout: the calls the API, the engine's configuration and the
 * maintenance's ticker make. A queue of one shard is served by {@link ScheduleClient}; a sharded
 * queue by {@code ShardedSchedules}, each schedule on its lane's shard (docs/SHARDING.md, 3.3).
 * Callers take the right one from {@code QueueShards.schedules(queue)}. Thread-safe.
 */
public interface Schedules {

    /**
     * Creates the schedule or replaces its definition; an equal definition changes nothing (see
     * {@link ScheduleClient#put} for which source wins).
     *
     * @param source {@code config} or {@code api}, shown with the schedule
     * @throws InvalidRequestException naming the field at fault
     */
    ScheduleClient.PutResult put(Schedule schedule, String source);

    /** Deletes the schedule and its history (its jobs stay). Returns false when there was none. */
    boolean remove(String queue, String name);

    /** Pauses the schedule: it fires nothing until resumed. Returns false when there is no such schedule. */
    boolean pause(String queue, String name);

    /** Resumes the schedule; slots that came due while it was paused are skipped. Returns false when there is no such schedule. */
    boolean resume(String queue, String name);

    /** One schedule with its recent history, or empty. */
    Optional<ScheduleView> get(String queue, String name);

    /** The queue's schedules, by name. */
    List<ScheduleView> list(String queue);

    /** One tick over the queue's schedules: fires every schedule due, each slot once whoever else ticks (see {@link ScheduleClient#tick}). */
    ScheduleClient.Tick tick(String queue);
}
