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
import java.util.function.Consumer;

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
 * home.
 *
 * <p>A put from a lane of another shard than the name's home moves the schedule there: S1 the
 * directory's claim records the move (from, to, its token, the definition) and makes the new
 * shard the home; S2 removes the schedule from the old shard, S3 puts it on the new one (both
 * fenced by the move's token, the paused flag and the configuration's fingerprint carried over);
 * S4 the old shard lets what S2 kept for the move expire (kept until then, however long a stop
 * lasts) and the directory drops the record. The old copy is gone before the new one is put, whatever
 * step a stop interrupts, so two copies never fire. A recorded move is finished (from S2, each
 * step safe to run again) by whoever meets it: the next put, remove, pause or resume of the name,
 * which the directory hands no token until then, and {@link #tick}, before it ticks, so a stop
 * leaves the schedule missing for at most one ticker interval. Thread-safe.
 */
public final class ShardedSchedules implements Schedules {

    /** The steps after which a test may stop or interleave a change ({@link #afterStep}). */
    enum Step {
        /** A put's or remove's step on the directory (for a move, S1), before its step on the home. */
        DIRECTORY,
        /** A move's S2: the schedule is removed from its old shard, not yet put on the new one. */
        MOVE_REMOVED,
        /** A move's S3: the schedule is on its new shard, the move still recorded in the directory. */
        MOVE_PUT,
        /** A move's S4 on the old shard: what S2 kept there lives an hour more, the move still recorded in the directory. */
        MOVE_RELEASED
    }

    /** How often a put, remove, pause or resume finishes another caller's move of the name and asks again before it gives up. */
    private static final int MOVES_FINISHED_AT_MOST = 8;

    private final ShardLayout layout;
    private final ScriptRunner scripts;
    private final List<QueueClient> shards;
    private final QueueSettings settings;
    /** Runs after each step of a put, remove or move that another step follows: for tests of stops and overtaking, else nothing. */
    private final Consumer<Step> afterStep;

    ShardedSchedules(ShardLayout layout, ScriptRunner scripts, List<QueueClient> shards, QueueSettings settings) {
        this(layout, scripts, shards, settings, step -> { });
    }

    private ShardedSchedules(ShardLayout layout, ScriptRunner scripts, List<QueueClient> shards, QueueSettings settings,
            Consumer<Step> afterStep) {
        this.layout = layout;
        this.scripts = scripts;
        this.shards = shards;
        this.settings = settings;
        this.afterStep = afterStep;
    }

    /** The same schedules, running {@code hook} between each put's or remove's two steps (for a move, after S1) (tests). */
    ShardedSchedules betweenSteps(Runnable hook) {
        return afterStep(step -> {
            if (step == Step.DIRECTORY) {
                hook.run();
            }
        });
    }

    /** The same schedules, running {@code hook} after each step that another follows (tests: a hook that throws is a stop there). */
    ShardedSchedules afterStep(Consumer<Step> hook) {
        return new ShardedSchedules(layout, scripts, shards, settings, hook);
    }

    /**
     * Creates the schedule on its lane's shard, or replaces its definition there (see {@link ScheduleClient#put}),
     * moving it there when it lives on another shard (a move answers {@code REPLACED}).
     *
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
        List<String> definition = shards.get(shard).schedules().definition(schedule, source);
        if ("config".equals(source) && keptAtAnotherHome(schedule.name(), shard, definition)) {
            return ScheduleClient.PutResult.KEPT;
        }
        List<String> args = new ArrayList<>(List.of(schedule.name(), Integer.toString(shard), "claim", ""));
        args.addAll(definition);
        for (int moved = 0; moved < MOVES_FINISHED_AT_MOST; moved++) {
            List<String> home = directory(schedule.name(), args);
            switch (home.get(0)) {
                case "MOVING" -> finish(Move.of(schedule.name(), home));
                case "MOVE" -> {
                    afterStep.accept(Step.DIRECTORY);
                    return finish(Move.of(schedule.name(), home))
                            .orElseThrow(() -> new ScheduleChangedConcurrentlyException(layout.queue(), schedule.name(), "put"));
                }
                default -> {
                    afterStep.accept(Step.DIRECTORY);
                    return shards.get(shard).schedules().putFenced(schedule.queue(), schedule.name(), definition, home.get(2))
                            .orElseThrow(() -> new ScheduleChangedConcurrentlyException(layout.queue(), schedule.name(), "put"));
                }
            }
        }
        throw new ScheduleChangedConcurrentlyException(layout.queue(), schedule.name(), "put");
    }

    /**
     * Removes the schedule from its shard and the directory; false when there was none. A move of
     * the name under way is finished first, so that no copy is left on either shard.
     *
     * @throws ScheduleChangedConcurrentlyException when a later put or remove of the name was applied first
     */
    @Override
    public boolean remove(String queue, String name) {
        layout.checkQueue(queue);
        RequestChecks.scheduleName(name);
        for (int moved = 0; moved < MOVES_FINISHED_AT_MOST; moved++) {
            List<String> home = directory(name, List.of(name, "", "remove", ""));
            switch (home.get(0)) {
                case "NONE" -> {
                    return false;
                }
                case "MOVING" -> finish(Move.of(name, home));
                default -> {
                    int shard = Integer.parseInt(home.get(1));
                    String token = home.get(2);
                    afterStep.accept(Step.DIRECTORY);
                    boolean removed = shards.get(shard).schedules().removeFenced(queue, name, token)
                            .orElseThrow(() -> new ScheduleChangedConcurrentlyException(queue, name, "remove"));
                    // A later put or remove handed a token since keeps the name's home (release answers LATER).
                    directory(name, List.of(name, Integer.toString(shard), "release", token));
                    return removed;
                }
            }
        }
        throw new ScheduleChangedConcurrentlyException(queue, name, "remove");
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

    /** The schedule by name, from its shard (while it moves, from the new shard or else the old: it is on one at most). */
    @Override
    public Optional<ScheduleView> get(String queue, String name) {
        layout.checkQueue(queue);
        RequestChecks.scheduleName(name);
        List<String> home = directory(name, List.of(name, "", "get", ""));
        return switch (home.get(0)) {
            case "NONE" -> Optional.empty();
            case "MOVING" -> {
                Move move = Move.of(name, home);
                yield shards.get(move.to()).schedules().get(queue, name).or(() -> shards.get(move.from()).schedules().get(queue, name));
            }
            default -> shards.get(Integer.parseInt(home.get(1))).schedules().get(queue, name);
        };
    }

    /** Every shard's schedules, by name. */
    @Override
    public List<ScheduleView> list(String queue) {
        List<ScheduleView> all = new ArrayList<>();
        shards.forEach(shard -> all.addAll(shard.schedules().list(queue)));
        all.sort(Comparator.comparing(view -> view.definition().name()));
        return all;
    }

    /**
     * Finishes every move the directory records (a stop left it, or it is under way), then one tick
     * over every shard's schedules (each fired on its own shard, judged on its clock), added up. A
     * move that cannot be finished now is a problem of the tick and is tried again at the next.
     */
    @Override
    public ScheduleClient.Tick tick(String queue) {
        layout.checkQueue(queue);
        int fired = 0;
        long skipped = 0;
        int raced = 0;
        List<String> problems = new ArrayList<>(finishMoves());
        for (QueueClient shard : shards) {
            ScheduleClient.Tick tick = shard.schedules().tick(queue);
            fired += tick.fired();
            skipped += tick.skipped();
            raced += tick.raced();
            problems.addAll(tick.problems());
        }
        return new ScheduleClient.Tick(fired, skipped, raced, List.copyOf(problems));
    }

    /**
     * True when a configured definition would move the schedule, but configuration applied it last
     * and an API change stands on the home ({@link ScheduleClient#keptFromConfig}): then nothing is
     * moved, as nothing would be replaced on one shard.
     */
    private boolean keptAtAnotherHome(String name, int shard, List<String> definition) {
        List<String> home = directory(name, List.of(name, "", "get", ""));
        return home.get(0).equals("HOME") && Integer.parseInt(home.get(1)) != shard
                && shards.get(Integer.parseInt(home.get(1))).schedules().keptFromConfig(layout.queue(), name, definition);
    }

    /** The name's home shard, a move of it under way finished first (so a pause or resume lands where the schedule stays). */
    private Optional<Integer> homeOf(String queue, String name) {
        layout.checkQueue(queue);
        RequestChecks.scheduleName(name);
        for (int moved = 0; moved < MOVES_FINISHED_AT_MOST; moved++) {
            List<String> home = directory(name, List.of(name, "", "get", ""));
            switch (home.get(0)) {
                case "NONE" -> {
                    return Optional.empty();
                }
                case "MOVING" -> finish(Move.of(name, home));
                default -> {
                    return Optional.of(Integer.parseInt(home.get(1)));
                }
            }
        }
        throw new ScheduleChangedConcurrentlyException(queue, name, "change");
    }

    /** Finishes every move the directory records; what could not be finished, as problems of a tick. */
    private List<String> finishMoves() {
        List<String> problems = new ArrayList<>();
        for (String name : directory("", List.of("", "", "moves", ""))) {
            try {
                List<String> home = directory(name, List.of(name, "", "get", ""));
                if (home.get(0).equals("MOVING")) {
                    finish(Move.of(name, home));
                }
            } catch (RuntimeException e) {
                problems.add("schedule '" + name + "': its move to another shard could not be finished now: " + e.getMessage());
            }
        }
        return problems;
    }

    /**
     * A move's steps after S1, each safe to run again with the move's token, so any caller may
     * finish a recorded move, and several at once: S2 removes the schedule from the old shard, S3
     * puts it on the new one with what it carries, S4 has the old shard let what S2 kept for the
     * move expire and then drops the directory's record. Empty when a
     * later change of the name was applied on either shard first (it superseded the move: nothing
     * is left to do here).
     */
    private Optional<ScheduleClient.PutResult> finish(Move move) {
        String queue = layout.queue();
        Optional<ScheduleClient.MovedOut> carried = shards.get(move.from()).schedules().removeMovedOut(queue, move.name(), move.token());
        if (carried.isEmpty()) {
            return Optional.empty();
        }
        afterStep.accept(Step.MOVE_REMOVED);
        Optional<ScheduleClient.PutResult> put = shards.get(move.to()).schedules()
                .putMoved(queue, move.name(), move.definition(), move.token(), carried.get());
        if (put.isEmpty()) {
            return Optional.empty();
        }
        afterStep.accept(Step.MOVE_PUT);
        shards.get(move.from()).schedules().releaseMovedOut(queue, move.name(), move.token());
        afterStep.accept(Step.MOVE_RELEASED);
        directory(move.name(), List.of(move.name(), Integer.toString(move.to()), "moved", move.token()));
        // The schedule existed (S2 removed it, whoever ran S2 first) and has a new definition, whatever the new shard's put saw.
        return Optional.of(carried.get().removed() ? ScheduleClient.PutResult.REPLACED : put.get());
    }

    private List<String> directory(String name, List<String> args) {
        return Replies.keyHome(scripts.run(Script.SCHEDULE_HOME, layout.keys(0), name, args), Script.SCHEDULE_HOME);
    }

    /** A move the directory records (schedule-home's MOVE or MOVING reply: from, to, token, then the definition). */
    private record Move(String name, int from, int to, String token, List<String> definition) {
        static Move of(String name, List<String> reply) {
            return new Move(name, Integer.parseInt(reply.get(1)), Integer.parseInt(reply.get(2)), reply.get(3),
                    List.copyOf(reply.subList(4, reply.size())));
        }
    }
}
