package io.echomq.queue.schedule;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.queue.internal.Replies;
import io.echomq.queue.internal.RequestChecks;
import io.echomq.queue.internal.Script;
import io.echomq.queue.internal.ScriptRunner;
import io.echomq.queue.internal.ValkeyCommands;
import io.echomq.tracing.JobTelemetry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.function.Function;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.UnifiedJedis;

/**
 * Recurring jobs: schedules kept in Valkey beside their queue's jobs (under the queue's hash tag,
 * invariant 8), each change one script (invariant 2). A schedule fires exactly one job per slot,
 * whatever the number of servers ticking it and however their clocks drift: every server plans
 * the same firing from the definition and the server time that {@code schedules-due} reads
 * ({@link FiringPlan}), and {@code schedule-fire} carries out only a plan made on the state it
 * finds (compare-and-set on the version and the next slot), only for slots due on the Valkey
 * clock (invariant 3), each slot's job under the slot's own idempotency key. Thread-safe; obtained
 * from {@link QueueClient#schedules()}.
 */
public final class ScheduleClient implements Schedules {

    /** Due schedules read at a time; a tick reads pages until none is left. */
    static final int DUE_PER_PAGE = 100;

    /** What a put did. */
    public enum PutResult {
        CREATED, REPLACED, UNCHANGED,
        /** From configuration only: configuration applied this definition before, and a change made over the API since stands. */
        KEPT
    }

    /**
     * What a schedule carries from the shard a move removed it from to its new shard
     * (docs/SHARDING.md 3.3): its paused flag and the fingerprint configuration last applied to it.
     *
     * @param removed           true when the old shard held the schedule when the move's S2 first ran there
     * @param configFingerprint {@code ""} when configuration never applied it
     */
    public record MovedOut(boolean removed, boolean paused, String configFingerprint) {
    }

    /** The server time and the schedules of a queue due at it, earliest first. */
    public record Due(long nowMs, List<String> names) {
    }

    /**
     * What one tick over a queue did.
     *
     * @param raced    schedules another server (or call) fired first: nothing to do here
     * @param problems schedules this server could not plan or whose plan was refused, with why
     */
    public record Tick(int fired, long skipped, int raced, List<String> problems) {
        static final Tick NOTHING = new Tick(0, 0, 0, List.of());
    }

    private final UnifiedJedis redis;
    private final ScriptRunner scripts;
    private final QueueSettings settings;
    private final JobTelemetry telemetry;
    /** A queue's keys after checking its name: the queue's own, or one shard's for a shard's client (docs/SHARDING.md 3.3). */
    private final Function<String, QueueKeys> queueKeys;
    /** schedule-fire's id layout arguments: a shard's stride N and offset s, or two '' on a queue of one shard (docs/SHARDING.md 1). */
    private final List<String> idLayout;

    /**
     * Over the queue client's connections and scripts, on the keys {@code queueKeys} names, minting
     * the fired jobs' ids by {@code idLayout} (empty, or a shard's stride and offset), as its
     * submissions do; callers take it from {@link QueueClient#schedules()}.
     *
     * @param telemetry traces each firing as the creation of its jobs
     */
    public ScheduleClient(UnifiedJedis redis, ScriptRunner scripts, QueueSettings settings, JobTelemetry telemetry,
            Function<String, QueueKeys> queueKeys, List<String> idLayout) {
        this.redis = redis;
        this.scripts = scripts;
        this.settings = settings;
        this.telemetry = telemetry;
        this.queueKeys = queueKeys;
        this.idLayout = idLayout.isEmpty() ? List.of("", "") : List.copyOf(idLayout);
    }

    /**
     * Creates the schedule or replaces its definition; an equal definition changes nothing (so
     * every server may put its configured schedules at each start). A replaced definition's first
     * slot is the first after now (server clock); its state and paused flag carry over. The last
     * change wins: a definition from configuration is applied only when it differs from the one
     * configuration applied last, so a change (or removal) made over the API stands until the
     * configuration itself changes ({@link PutResult#KEPT}).
     *
     * @param source {@code config} or {@code api}, shown with the schedule
     * @throws InvalidRequestException naming the field at fault
     */
    @Override
    public PutResult put(Schedule schedule, String source) {
        // An empty token: a queue of one shard has no directory, and its puts are not fenced.
        return runPut(schedule.queue(), schedule.name(), definition(schedule, source), List.of("")).orElseThrow();
    }

    /**
     * {@link #put} on one shard of a sharded queue, of a definition already checked and laid out
     * ({@link #definition}), with the token the name's directory handed it ({@code schedule-home}):
     * empty, and nothing changed, when a later put or remove of the name was applied on this shard
     * first.
     */
    public Optional<PutResult> putFenced(String queue, String name, List<String> definition, String token) {
        return runPut(queue, name, definition, List.of(token));
    }

    /**
     * The checked definition as {@code schedule-put} takes it (its ARGV[2] to ARGV[13], from the
     * fingerprint to the source): what a sharded queue's directory keeps with a move, so that
     * whoever finishes the move puts it ({@link #putMoved}).
     *
     * @throws InvalidRequestException naming the field at fault
     */
    public List<String> definition(Schedule schedule, String source) {
        if (schedule == null) {
            throw new InvalidRequestException("schedule", "is required");
        }
        schedule.check(settings);
        int attempts = schedule.maxAttempts().orElse(settings.defaultMaxAttempts());
        return List.of(schedule.fingerprint(attempts), schedule.kind(), schedule.cron().orElse(""),
                schedule.cron().isPresent() ? schedule.zone().orElse("UTC") : "",
                schedule.interval().map(d -> Long.toString(d.toMillis())).orElse(""), schedule.payload(), schedule.lane(),
                Integer.toString(attempts), schedule.misfire().wireName(), Integer.toString(schedule.misfireLimit()),
                Long.toString(schedule.misfireGrace().toMillis()), source);
    }

    /**
     * True when a put of {@code definition} ({@link #definition}) from configuration would be
     * KEPT here ({@code schedule-put}'s rule, read without writing): configuration applied it last
     * and the stored definition, set over the API since, differs. A sharded queue asks the name's
     * home before a configured put moves it, so that a restart does not move back a schedule the
     * API moved.
     */
    public boolean keptFromConfig(String queue, String name, List<String> definition) {
        String fingerprint = definition.get(0);
        String key = keysOf(queue, name).schedule(name);
        List<String> stored = ValkeyCommands.read(() -> redis.hmget(key, "fingerprint", "config_fingerprint"));
        return "config".equals(definition.get(definition.size() - 1)) && fingerprint.equals(stored.get(1))
                && !fingerprint.equals(stored.get(0));
    }

    /**
     * A move's S3 on this shard of a sharded queue (docs/SHARDING.md 3.3): puts {@code definition}
     * ({@link #definition}) with the move's token and what the schedule carries from its old shard
     * ({@link #removeMovedOut}); empty, and nothing changed, when a later put or remove of the name
     * was applied here first. Safe to send again: the same definition is then unchanged.
     */
    public Optional<PutResult> putMoved(String queue, String name, List<String> definition, String token, MovedOut carried) {
        return runPut(queue, name, definition, List.of(token, carried.paused() ? "1" : "0", carried.configFingerprint()));
    }

    /** {@code schedule-put}: the name, the definition (ARGV[2] to ARGV[13]), then the token and what a move carries. */
    private Optional<PutResult> runPut(String queue, String name, List<String> definition, List<String> after) {
        List<String> args = new ArrayList<>(1 + definition.size() + after.size());
        args.add(name);
        args.addAll(definition);
        args.addAll(after);
        return Replies.schedulePut(scripts.run(Script.SCHEDULE_PUT, keysOf(queue, name), name, args)).map(PutResult::valueOf);
    }

    /** Deletes the schedule and its history (its jobs stay). Returns false when there was none. */
    @Override
    public boolean remove(String queue, String name) {
        return removeFenced(queue, name, "").orElseThrow();
    }

    /**
     * {@link #remove} on one shard of a sharded queue, with the token the name's directory handed
     * it, as {@link #putFenced}: empty, and nothing changed, when a later put or remove of the
     * name was applied on this shard first.
     */
    public Optional<Boolean> removeFenced(String queue, String name, String token) {
        QueueKeys keys = keysOf(queue, name);
        return Replies.scheduleRemoved(scripts.run(Script.SCHEDULE_REMOVE, keys, name, List.of(name, token)));
    }

    /**
     * A move's S2 on this shard of a sharded queue (docs/SHARDING.md 3.3): removes the schedule as
     * {@link #removeFenced} does, with the move's token, and answers what it carries to its new
     * shard, kept here so that the same step sent again (a move finished by another caller) answers
     * the same; empty, and nothing changed, when a later put or remove of the name was applied here first.
     */
    public Optional<MovedOut> removeMovedOut(String queue, String name, String token) {
        return Replies.scheduleMovedOut(scripts.run(Script.SCHEDULE_REMOVE, keysOf(queue, name), name, List.of(name, token, "move")));
    }

    /**
     * A move's S4 on its old shard, once the new shard holds the schedule: what
     * {@link #removeMovedOut} kept here for the move, which no stop may expire before, lives an
     * hour from now, as a removed schedule's fence does (a configuration's fingerprint kept here
     * keeps it longer). Safe to send again; changes nothing once a later put or remove of the name
     * was applied here.
     */
    public void releaseMovedOut(String queue, String name, String token) {
        Replies.scheduleMoveReleased(scripts.run(Script.SCHEDULE_REMOVE, keysOf(queue, name), name, List.of(name, token, "moved")));
    }

    /** Pauses the schedule: it fires nothing until resumed. Returns false when there is no such schedule. */
    @Override
    public boolean pause(String queue, String name) {
        return setPaused(queue, name, true);
    }

    /** Resumes the schedule; slots that came due while it was paused are skipped. Returns false when there is no such schedule. */
    @Override
    public boolean resume(String queue, String name) {
        return setPaused(queue, name, false);
    }

    private boolean setPaused(String queue, String name, boolean paused) {
        QueueKeys keys = keysOf(queue, name);
        return Replies.scheduleFound(scripts.run(Script.SCHEDULE_SET_PAUSED, keys, name, List.of(name, paused ? "1" : "0")),
                "schedule-set-paused");
    }

    /** One schedule with its recent history, or empty. */
    @Override
    public Optional<ScheduleView> get(String queue, String name) {
        return read(keysOf(queue, name), name, true);
    }

    /** The queue's schedules, by name. */
    @Override
    public List<ScheduleView> list(String queue) {
        QueueKeys keys = queueKeys.apply(queue);
        List<String> names = ValkeyCommands.read(() -> redis.zrange(keys.schedules(), 0, -1));
        List<ScheduleView> views = new ArrayList<>(names.size());
        for (String name : names.stream().sorted().toList()) {
            read(keys, name, true).ifPresent(views::add);
        }
        return views;
    }

    /** The server time and the queue's schedules due at it (read only). */
    public Due due(String queue, int limit) {
        QueueKeys keys = queueKeys.apply(queue);
        RequestChecks.range("limit", limit, 1, 10_000);
        return Replies.schedulesDue(scripts.run(Script.SCHEDULES_DUE, keys, null, List.of(Integer.toString(limit))));
    }

    /**
     * Carries out {@code plan} for the schedule, if the schedule is still at {@code version} and
     * {@code expectedNext} (absent: not yet planned) and the plan is due and keeps the rules (see
     * {@code schedule-fire-6.lua}). Safe to resend: a second run finds the schedule moved.
     */
    public ScheduleFiring fire(String queue, String name, long version, OptionalLong expectedNext, FiringPlan plan) {
        QueueKeys keys = keysOf(queue, name);
        List<String> args = new ArrayList<>(11 + plan.fire().size());
        args.add(keys.prefix());
        args.add(name);
        args.add(Long.toString(version));
        args.add(expectedNext.isPresent() ? Long.toString(expectedNext.getAsLong()) : "");
        args.add(Long.toString(plan.planNowMs()));
        args.add(Long.toString(plan.nextSlotMs()));
        args.add(Long.toString(plan.skipped()));
        args.add(plan.latestSkipped().isPresent() ? Long.toString(plan.latestSkipped().getAsLong()) : "");
        args.addAll(idLayout);
        plan.fire().forEach(slot -> args.add(Long.toString(slot)));
        if (plan.fire().isEmpty()) {
            // Only advancing: no job is made, so there is no creation to trace.
            args.add(8, "");
            return Replies.scheduleFired(scripts.run(Script.SCHEDULE_FIRE, keys, name, args));
        }
        return telemetry.firing(queue, name, plan.fire().size(), creation -> {
            args.add(8, creation);
            return Replies.scheduleFired(scripts.run(Script.SCHEDULE_FIRE, keys, name, args));
        });
    }

    /**
     * One tick over the queue's schedules, as every server's maintenance runs it: fires every
     * schedule due, a page at a time, each page planned at the server time read with it (so
     * lateness is judged when a schedule is reached, not when the tick began). Each server takes a
     * page in its own random order, so servers ticking together spread over it instead of racing
     * for the same schedules. Schedules another server fired first count as raced; nothing fires
     * twice. A schedule that cannot be fired here (a problem) is not tried again in the same tick.
     */
    @Override
    public Tick tick(String queue) {
        QueueKeys keys = queueKeys.apply(queue);
        Set<String> handled = new HashSet<>();
        Set<String> stillDue = new HashSet<>();
        TickTally tally = new TickTally();
        while (true) {
            // Schedules this tick could not fire stay due and come first: ask past them.
            Due due = due(queue, DUE_PER_PAGE + stillDue.size());
            List<String> page = new ArrayList<>(due.names());
            page.removeAll(handled);
            if (page.isEmpty()) {
                return tally.tick();
            }
            Collections.shuffle(page, ThreadLocalRandom.current());
            for (String name : page) {
                handled.add(name);
                if (!fireDue(queue, keys, name, due.nowMs(), tally)) {
                    stillDue.add(name);
                }
            }
        }
    }

    /** Plans and fires one due schedule; false when it could not, so that it is still due. */
    private boolean fireDue(String queue, QueueKeys keys, String name, long nowMs, TickTally tally) {
        Optional<ScheduleView> found = read(keys, name, false);
        if (found.isEmpty() || found.get().paused()) {
            tally.raced++;
            return true;
        }
        ScheduleView view = found.get();
        Schedule definition = view.definition();
        FiringPlan plan;
        try {
            plan = FiringPlan.plan(definition.slots(), definition.misfire(), definition.misfireLimit(),
                    definition.misfireGrace().toMillis(), view.nextSlotMs(), view.anchor().toEpochMilli(),
                    view.resumedAt().map(i -> OptionalLong.of(i.toEpochMilli())).orElse(OptionalLong.empty()), nowMs);
        } catch (InvalidRequestException e) {
            tally.problems.add("schedule '" + name + "' cannot be planned here: " + e.getMessage());
            return false;
        }
        if (plan.nothingDue(view.nextSlotMs())) {
            return true;
        }
        if (plan.nextSlotMs() == ScheduleSlots.NO_SLOT) {
            tally.problems.add("schedule '" + name + "' has no slot after " + nowMs + " ms: it fires no more");
            return false;
        }
        ScheduleFiring result = fire(queue, name, view.version(), view.nextSlotMs(), plan);
        switch (result.status()) {
            case FIRED -> {
                tally.fired += result.fired().size();
                tally.skipped += result.skipped();
            }
            case STALE, PAUSED, NOT_FOUND, NOT_DUE -> tally.raced++;
            case REFUSED -> {
                tally.problems.add("schedule '" + name + "': the plan was refused: " + result.detail().orElse(""));
                return false;
            }
        }
        return true;
    }

    /** What a tick has done so far; used by the thread that ticks. */
    private static final class TickTally {
        int fired;
        long skipped;
        int raced;
        final List<String> problems = new ArrayList<>();

        Tick tick() {
            return fired == 0 && skipped == 0 && raced == 0 && problems.isEmpty() ? Tick.NOTHING
                    : new Tick(fired, skipped, raced, List.copyOf(problems));
        }
    }

    private Optional<ScheduleView> read(QueueKeys keys, String name, boolean withHistory) {
        Map<String, String> hash = ValkeyCommands.read(() -> redis.hgetAll(keys.schedule(name)));
        if (hash == null || !hash.containsKey("version")) {
            return Optional.empty();
        }
        List<String> log = withHistory ? ValkeyCommands.read(() -> redis.lrange(keys.scheduleHistory(name), 0, -1)) : List.of();
        return Optional.of(ScheduleView.of(keys.queue(), hash, log));
    }

    private QueueKeys keysOf(String queue, String name) {
        QueueKeys keys = queueKeys.apply(queue);
        RequestChecks.scheduleName(name);
        return keys;
    }
}
