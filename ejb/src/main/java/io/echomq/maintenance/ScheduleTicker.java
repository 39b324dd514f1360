package io.echomq.maintenance;

import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.schedule.Schedules;
import java.time.Duration;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Fires the recurring jobs of a queue whose slots have come: runs on every server, each tick one
 * {@link Schedules#tick} per queue. Any number of servers may tick at once and with any
 * clock: what is due is read on the Valkey clock, and each slot's firing is a compare-and-set in
 * {@code schedule-fire}, so the servers that lose the race change nothing (counted as raced).
 * A slot fires within about one interval of coming due while any server runs. A sharded queue's
 * schedules are ticked on every shard, each on its own, after the moves of schedules between
 * shards that a stop left unfinished are finished (docs/SHARDING.md, 3.3 and 7), so a schedule is
 * missing for at most one interval after such a stop.
 */
final class ScheduleTicker implements MaintenanceDuty {

    private static final Logger LOG = Logger.getLogger(ScheduleTicker.class.getName());

    /** A queue's schedules, over every shard of a sharded queue. */
    private final Function<String, Schedules> schedules;
    private final Duration interval;

    ScheduleTicker(Function<String, Schedules> schedules, Duration interval) {
        this.schedules = schedules;
        this.interval = interval;
    }

    @Override
    public String name() {
        return "schedules";
    }

    @Override
    public Duration interval() {
        return interval;
    }

    @Override
    public Pass runOnce(String queueName) {
        ScheduleClient.Tick tick = schedules.apply(queueName).tick(queueName);
        for (String problem : tick.problems()) {
            LOG.log(Level.WARNING, "schedules on queue ''{0}'': {1}", new Object[] {queueName, problem});
        }
        if (tick.skipped() > 0) {
            LOG.log(Level.INFO, "schedules on queue ''{0}'': {1} slots skipped (paused, or missed as the misfire policy says)",
                    new Object[] {queueName, tick.skipped()});
        }
        return Pass.scheduled(tick.fired());
    }
}
