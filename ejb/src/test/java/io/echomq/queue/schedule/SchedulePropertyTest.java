package io.echomq.queue.schedule;

import static io.echomq.testkit.property.Draw.weight;
import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.RealServices;
import io.echomq.testkit.property.Draw;
import io.echomq.testkit.property.SequenceProperty;
import io.echomq.testkit.property.SequenceProperty.Scenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Random interleavings of firing calls on one schedule from several simulated servers, against a
 * real server (one Valkey here, a Valkey Cluster in {@link ClusterSchedulePropertyTest}): servers
 * that plan on the Valkey clock, servers whose clocks run ahead or behind and plan on their own
 * time, servers that plan on a view they read earlier (stale), servers that send a plan which
 * breaks the rules (firing a slot early, skipping an on-time slot, firing more missed slots than
 * the policy allows), pauses and resumes, and waits. After every step, on the server's own data:
 * <ul>
 *   <li>never two jobs for one slot: every job of the queue names its slot in its idempotency key, each slot once;</li>
 *   <li>never a slot fired before it was due: each job was created (server clock) at or after its slot;</li>
 *   <li>no slot lost: the schedule's fired and skipped counts add up to the slots from its first to its next, and
 *       the fired count is the number of jobs;</li>
 *   <li>a rogue plan is refused or found stale, never carried out.</li>
 * </ul>
 * Each of the 60 sequences (a schedule's definition, then 5 to 30 steps, drawn from a seed:
 * {@link SequenceProperty}) runs on a schedule of its own; a failure prints its seed and its
 * shortest failing prefix.
 */
class SchedulePropertyTest {

    private static final int SERVERS = 3;
    private static final int SEQUENCES = 60;
    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final AtomicLong FIRES = new AtomicLong();
    private static final AtomicLong JOBS = new AtomicLong();
    private static final AtomicLong REFUSED = new AtomicLong();

    private static UnifiedJedis redis;
    private static ScheduleClient schedules;

    UnifiedJedis connectToServer() {
        return RealServices.valkey().newClient();
    }

    @BeforeEach
    void connect() {
        FIRES.set(0);
        JOBS.set(0);
        REFUSED.set(0);
        redis = connectToServer();
        schedules = QueueClient.connect(redis, QueueSettings.DEFAULT).schedules();
    }

    @AfterEach
    void disconnect() {
        redis.close();
    }

    @Test
    void oneJobPerSlotNeverEarlyNoneLost() {
        SequenceProperty property = SequenceProperty.of(getClass(), SEQUENCES);
        try {
            property.check(draw -> new Scenario<>(definition(draw), scenario(draw)), SchedulePropertyTest::freshSchedule);
        } finally {
            System.out.printf("%s: sequences=%d fire_calls=%d jobs=%d rogue_refused=%d duplicates=0%n", getClass().getSimpleName(),
                    property.sequences(), FIRES.get(), JOBS.get(), REFUSED.get());
        }
    }

    /** A schedule of the definition on a queue of its own, created through the API. */
    static Run freshSchedule(Definition definition) {
        String queue = "sched-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet();
        Schedule schedule = Schedule.every(queue, "s", Duration.ofMillis(definition.intervalMs), "{}")
                .withMisfire(definition.misfire, definition.limit).withMisfireGrace(Duration.ofMillis(definition.graceMs));
        assertThat(schedules.put(schedule, "api")).isEqualTo(ScheduleClient.PutResult.CREATED);
        return new Run(queue, schedule);
    }

    record Definition(long intervalMs, long graceMs, Misfire misfire, int limit) {
    }

    static Definition definition(Draw draw) {
        return new Definition(draw.pick(15L, 40L), draw.pick(20L, 60L, 500L), draw.pick(Misfire.values()), draw.between(1, 3));
    }

    static List<Action> scenario(Draw draw) {
        return draw.listOf(5, 30, SchedulePropertyTest::action);
    }

    static Action action(Draw draw) {
        return draw.weighted(weight(8, SchedulePropertyTest::tick), weight(2, SchedulePropertyTest::rogue),
                weight(1, d -> new SetPaused(d.pick(true, false))), weight(5, d -> new Sleep(d.pick(0, 5, 20, 60, 150))));
    }

    static int server(Draw draw) {
        return draw.between(0, SERVERS - 1);
    }

    static Action tick(Draw draw) {
        return new Tick(server(draw), draw.pick(0L, 0L, 0L, -150L, -30L, 30L, 150L, 5_000L), draw.pick(false, false, true));
    }

    static Action rogue(Draw draw) {
        return new Rogue(server(draw), draw.pick(Rogue.Kind.values()));
    }

    /** One sequence's schedule and what the simulated servers last read of it. */
    static final class Run implements SequenceProperty.Subject<Action> {
        final String queue;
        final Schedule schedule;
        final ScheduleSlots slots;
        final QueueKeys keys;
        final Map<Integer, ScheduleView> lastRead = new HashMap<>();
        long firstSlot = Long.MIN_VALUE;

        Run(String queue, Schedule schedule) {
            this.queue = queue;
            this.schedule = schedule;
            this.slots = schedule.slots();
            this.keys = new QueueKeys(queue);
        }

        @Override
        public void apply(Action action) throws InterruptedException {
            action.applyTo(this);
            check();
        }

        @Override
        public void close() {
            redis.del(keys.schedule("s"));
        }

        ScheduleView view() {
            return schedules.get(queue, "s").orElseThrow();
        }

        long serverNow() {
            return schedules.due(queue, 1).nowMs();
        }

        ScheduleFiring fire(ScheduleView seen, FiringPlan plan) {
            FIRES.incrementAndGet();
            return schedules.fire(queue, "s", seen.version(), seen.nextSlotMs(), plan);
        }

        FiringPlan plan(ScheduleView seen, long now) {
            return FiringPlan.plan(slots, schedule.misfire(), schedule.misfireLimit(), schedule.misfireGrace().toMillis(),
                    seen.nextSlotMs(), seen.anchor().toEpochMilli(),
                    seen.resumedAt().map(i -> OptionalLong.of(i.toEpochMilli())).orElse(OptionalLong.empty()), now);
        }

        /** The invariants, on the server's data. */
        void check() {
            ScheduleView view = view();
            if (firstSlot == Long.MIN_VALUE) {
                firstSlot = slots.next(view.anchor().toEpochMilli());
            }
            long seq = redis.get(keys.seq()) == null ? 0 : Long.parseLong(redis.get(keys.seq()));
            Map<Long, String> jobBySlot = new HashMap<>();
            for (long id = 1; id <= seq; id++) {
                Map<String, String> job = redis.hgetAll(keys.job(Long.toString(id)));
                String idem = job.get("idem");
                assertThat(idem).as("job %d is a slot's job", id).startsWith("schedule:s:");
                long slot = Long.parseLong(idem.substring("schedule:s:".length()));
                String other = jobBySlot.put(slot, Long.toString(id));
                assertThat(other).as("slot %d has one job, found jobs %s and %d", slot, other, id).isNull();
                assertThat(Long.parseLong(job.get("created_at"))).as("job %d of slot %d made before its slot was due", id, slot)
                        .isGreaterThanOrEqualTo(slot);
                assertThat(slot).as("slot %d is a slot of the schedule, from its first", slot)
                        .isGreaterThanOrEqualTo(firstSlot).isEqualTo(slots.next(slot - 1));
            }
            assertThat(view.fired()).as("fired count is the number of jobs").isEqualTo(seq);
            if (view.nextSlot().isPresent()) {
                long next = view.nextSlotMs().getAsLong();
                long slotsPassed = slots.count(firstSlot, next - 1, Long.MAX_VALUE);
                assertThat(view.fired() + view.skipped()).as("every slot from the first to the next is fired or skipped")
                        .isEqualTo(slotsPassed);
                assertThat(jobBySlot.keySet()).allSatisfy(slot -> assertThat(slot).isLessThan(next));
            } else {
                assertThat(seq).isZero();
            }
        }
    }

    sealed interface Action {
        void applyTo(Run run) throws InterruptedException;
    }

    /**
     * A server's tick: reads the due time and the schedule (or, stale, uses what it read last
     * time), plans with the server time shifted by its clock's drift, and fires.
     */
    record Tick(int server, long driftMs, boolean stale) implements Action {
        @Override
        public void applyTo(Run run) {
            long now = run.serverNow();
            ScheduleView seen = stale && run.lastRead.containsKey(server) ? run.lastRead.get(server) : run.view();
            run.lastRead.put(server, seen);
            if (seen.paused()) {
                return;
            }
            FiringPlan plan = run.plan(seen, now + driftMs);
            if (plan.nothingDue(seen.nextSlotMs())) {
                return;
            }
            ScheduleFiring result = run.fire(seen, plan);
            if (result.status() == ScheduleFiring.Status.FIRED) {
                JOBS.addAndGet(result.fired().size());
                assertThat(driftMs <= 0 || plan.fire().stream().allMatch(s -> s <= now + 1_000))
                        .as("a plan made ahead of the server clock fires only due slots").isTrue();
            }
            assertThat(result.status()).as("an honest plan is never refused: %s", result.detail())
                    .isNotEqualTo(ScheduleFiring.Status.REFUSED);
        }
    }

    /** A plan that breaks a rule, on a fresh view: it must be refused (or be stale, or not due), never carried out. */
    record Rogue(int server, Kind kind) implements Action {
        enum Kind { EARLY_SLOT, SKIP_ON_TIME, TOO_MANY_MISSED, NEXT_NOT_AFTER }

        /**
         * Whether the plan was rogue whenever the script may have run (its TIME between the plan's
         * now and {@code after}): its fired slot still in the future, its skipped slot still on time.
         */
        private boolean stillRogue(Run run, FiringPlan bad, long after) {
            return switch (kind) {
                case EARLY_SLOT -> bad.fire().get(0) > after;
                case SKIP_ON_TIME -> bad.latestSkipped().getAsLong() > after - run.schedule.misfireGrace().toMillis();
                case TOO_MANY_MISSED, NEXT_NOT_AFTER -> true;
            };
        }

        @Override
        public void applyTo(Run run) {
            ScheduleView seen = run.view();
            if (seen.paused() || seen.nextSlot().isEmpty()) {
                return;
            }
            long now = run.serverNow();
            long next = seen.nextSlotMs().getAsLong();
            FiringPlan honest = run.plan(seen, now);
            FiringPlan bad = switch (kind) {
                // A slot after now, with the plan's time honest: fired early.
                case EARLY_SLOT -> new FiringPlan(now, List.of(run.slots.next(now)), 0, OptionalLong.empty(), run.slots.next(run.slots.next(now)));
                // Every due slot skipped, including on-time ones.
                case SKIP_ON_TIME -> {
                    long last = run.slots.previous(now + 1);
                    // Slots that came due while the schedule was paused are skipped on resume, whatever their age.
                    boolean resumedSince = seen.resumedAt().map(r -> r.toEpochMilli() > last).orElse(false);
                    if (last < next || last <= now - run.schedule.misfireGrace().toMillis() || resumedSince) {
                        yield null;
                    }
                    yield new FiringPlan(now, List.of(), run.slots.count(next, last, Long.MAX_VALUE), OptionalLong.of(last),
                            run.slots.next(now));
                }
                // Every missed slot fired, beyond the policy.
                case TOO_MANY_MISSED -> {
                    List<Long> missed = new ArrayList<>();
                    for (long s = next; s <= now - run.schedule.misfireGrace().toMillis() && missed.size() < 50; s = run.slots.next(s)) {
                        missed.add(s);
                    }
                    if (missed.size() <= run.schedule.misfire().allowed(run.schedule.misfireLimit())) {
                        yield null;
                    }
                    yield new FiringPlan(now, missed, 0, OptionalLong.empty(), run.slots.next(now));
                }
                case NEXT_NOT_AFTER -> honest.fire().isEmpty() ? null
                        : new FiringPlan(now, honest.fire(), honest.skipped(), honest.latestSkipped(), honest.fire().get(0));
            };
            if (bad == null) {
                return;
            }
            ScheduleFiring result = run.fire(seen, bad);
            if (!stillRogue(run, bad, run.serverNow())) {
                // The script judged the plan on its own TIME, somewhere up to now: on a slow machine
                // the early slot may have come due, or the on-time slot may have been missed, by then.
                return;
            }
            assertThat(result.status()).as("rogue plan %s: %s", kind, bad).isNotEqualTo(ScheduleFiring.Status.FIRED);
            if (result.status() == ScheduleFiring.Status.REFUSED) {
                REFUSED.incrementAndGet();
            }
        }
    }

    record SetPaused(boolean paused) implements Action {
        @Override
        public void applyTo(Run run) {
            assertThat(paused ? schedules.pause(run.queue, "s") : schedules.resume(run.queue, "s")).isTrue();
        }
    }

    record Sleep(int ms) implements Action {
        @Override
        public void applyTo(Run run) throws InterruptedException {
            Thread.sleep(ms);
        }
    }
}
