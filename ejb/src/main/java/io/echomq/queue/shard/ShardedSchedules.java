package io.echomq.queue.shard;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleChangedConcurrentlyException;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.schedule.ScheduleView;
import io.echomq.queue.schedule.Schedules;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The schedules of a sharded queue (docs/SHARDING.md, 3.3): a schedule lives on the shard of its
 * lane (a schedule of the default lane on shard 0), so that its firing enqueues on that shard in
 * the same script, and its name is unique over the shards through a directory on shard 0
 * ({@code schedule-home}). A put is the directory's claim, then today's put on the home; a
 * remove is the directory's token, today's remove on the home, then the directory's release. A
 * stop between the two leaves the name's home recorded and nothing or the schedule there, which
 * the next put or remove of the name completes. Each put or remove carries a token from the
 * directory, and the home applies none below one it applied (its {@code fence}), so a put that a
 * remove or a later put overtook changes nothing when it lands
 * ({@link ScheduleChangedConcurrentlyException}) rather than leaving a schedule that no name
 * reaches, or a second one of the same name on another shard. Pause and resume go to the name's
 * home. Moving a schedule to a lane of another shard (S1–S4) is not built: such a put is refused
 * naming {@code lane}. Thread-safe.
 */
public final class ShardedSchedules implements Schedules {

    private final ShardLayout layout;
    private final ScriptRunner scripts;
    private final List<QueueClient> shards;
    private final QueueSettings settings;
    /** Runs between a put's or remove's step on the directory and its step on the home: for tests of overtaking, else nothing. */
    private final Runnable betweenSteps;

    ShardedSchedules(ShardLayout layout, ScriptRunner scripts, List<QueueClient> shards, QueueSettings settings) {
        this(layout, scripts, shards, settings, () -> { });
    }

    private ShardedSchedules(ShardLayout layout, ScriptRunner scripts, List<QueueClient> shards, QueueSettings settings,
            Runnable betweenSteps) {
        this.layout = layout;
        this.scripts = scripts;
        this.shards = shards;
        this.settings = settings;
        this.betweenSteps = betweenSteps;
    }

    /** The same schedules, running {@code hook} between each put's or remove's two steps (tests). */
    ShardedSchedules betweenSteps(Runnable hook) {
        return new ShardedSchedules(layout, scripts, shards, settings, hook);
    }

    /**
     * Creates the schedule on its lane's shard, or replaces its definition there (see {@link ScheduleClient#put}).
     *
     * @throws InvalidRequestException naming {@code lane} when the schedule lives on another shard than its new lane's
     * @throws ScheduleChangedConcurrentlyException when a later put or remove of the name was applied first
     */
    @Override
    public ScheduleClient.PutResult put(Schedule schedule, String source) {
        if (schedule == null) {
            throw new InvalidRequestException("schedule", "is required");
        }
        schedule.check(settings);
        layout.checkQueue(schedule.queue());
        int shard = ShardLayout.pinsLane(schedule.lane()) ? layout.shardOfLane(schedule.lane()) : 0;
        List<String> home = directory(schedule.name(), shard, "claim");
        int at = Integer.parseInt(home.get(1));
        if (at != shard) {
            throw new InvalidRequestException("lane", "'" + schedule.lane() + "' is on shard " + shard + " of queue '" + layout.queue()
                    + "', and schedule '" + schedule.name() + "' lives on shard " + at + ": on a sharded queue a schedule keeps to "
                    + "lanes of its shard (moving it is not built yet); remove it and put it again to move it");
        }
        betweenSteps.run();
        return shards.get(shard).schedules().putFenced(schedule, source, home.get(2))
                .orElseThrow(() -> new ScheduleChangedConcurrentlyException(layout.queue(), schedule.name(), "put"));
    }

    /**
     * Removes the schedule from its shard and the directory; false when there was none.
     *
     * @throws ScheduleChangedConcurrentlyException when a later put or remove of the name was applied first
     */
    @Override
    public boolean remove(String queue, String name) {
        layout.checkQueue(queue);
        RequestChecks.scheduleName(name);
        List<String> home = directory(name, "", "remove", "");
        if (!home.get(0).equals("HOME")) {
            return false;
        }
        int shard = Integer.parseInt(home.get(1));
        String token = home.get(2);
        betweenSteps.run();
        boolean removed = shards.get(shard).schedules().removeFenced(queue, name, token)
                .orElseThrow(() -> new ScheduleChangedConcurrentlyException(queue, name, "remove"));
        // A later put or remove handed a token since keeps the name's home (release answers LATER).
        directory(name, Integer.toString(shard), "release", token);
        return removed;
    }

    /** Pauses the schedule on its home shard; false when there is none. */
    @Override
    public boolean pause(String queue, String name) {
        return homeOf(queue, name).map(shard -> shards.get(shard).schedules().pause(queue, name)).orElse(false);
    }

    /** Resumes the schedule on its home shard; false when there is none. */
    @Override
    public boolean resume(String queue, String name) {
        return homeOf(queue, name).map(shard -> shards.get(shard).schedules().resume(queue, name)).orElse(false);
    }

    /** The schedule by name, from its shard. */
    @Override
    public Optional<ScheduleView> get(String queue, String name) {
        return homeOf(queue, name).flatMap(shard -> shards.get(shard).schedules().get(queue, name));
    }

    /** Every shard's schedules, by name. */
    @Override
    public List<ScheduleView> list(String queue) {
        List<ScheduleView> all = new ArrayList<>();
        shards.forEach(shard -> all.addAll(shard.schedules().list(queue)));
        all.sort(Comparator.comparing(view -> view.definition().name()));
        return all;
    }

    /** One tick over every shard's schedules (each fired on its own shard, judged on its clock), added up. */
    @Override
    public ScheduleClient.Tick tick(String queue) {
        int fired = 0;
        long skipped = 0;
        int raced = 0;
        List<String> problems = new ArrayList<>();
        for (QueueClient shard : shards) {
            ScheduleClient.Tick tick = shard.schedules().tick(queue);
            fired += tick.fired();
            skipped += tick.skipped();
            raced += tick.raced();
            problems.addAll(tick.problems());
        }
        return new ScheduleClient.Tick(fired, skipped, raced, List.copyOf(problems));
    }

    private Optional<Integer> homeOf(String queue, String name) {
        layout.checkQueue(queue);
        RequestChecks.scheduleName(name);
        List<String> home = directory(name, "", "get", "");
        return home.get(0).equals("HOME") ? Optional.of(Integer.parseInt(home.get(1))) : Optional.empty();
    }

    private List<String> directory(String name, int shard, String action) {
        return directory(name, Integer.toString(shard), action, "");
    }

    private List<String> directory(String name, String shard, String action, String token) {
        return Replies.keyHome(scripts.run(Script.SCHEDULE_HOME, layout.keys(0), name, List.of(name, shard, action, token)),
                Script.SCHEDULE_HOME);
    }
}
