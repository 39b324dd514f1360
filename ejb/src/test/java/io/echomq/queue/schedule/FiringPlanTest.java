package io.echomq.queue.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.InvalidRequestException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The slot sequences and the firing plan: pure functions, the same on every server. */
class FiringPlanTest {

    private static final ScheduleSlots SECOND = ScheduleSlots.every(1_000);

    @Test
    void intervalSlotsAreTheMultiplesOfTheIntervalSinceTheEpoch() {
        assertThat(SECOND.next(10_500)).isEqualTo(11_000);
        assertThat(SECOND.next(11_000)).isEqualTo(12_000);
        assertThat(SECOND.previous(11_000)).isEqualTo(10_000);
        assertThat(SECOND.previous(11_001)).isEqualTo(11_000);
        assertThat(SECOND.count(10_000, 12_000, 100)).isEqualTo(3);
        assertThat(SECOND.count(10_001, 11_999, 100)).isEqualTo(1);
        assertThat(SECOND.count(10_000, 1_000_000, 7)).isEqualTo(7);
    }

    @Test
    void cronSlotsFollowTheExpressionInItsZone() {
        ScheduleSlots daily = ScheduleSlots.cron("30 2 * * *", "Europe/Paris");
        long at = ZonedDateTime.of(2026, 3, 28, 12, 0, 0, 0, ZoneId.of("Europe/Paris")).toInstant().toEpochMilli();
        long next = daily.next(at);
        assertThat(Instant.ofEpochMilli(next).atZone(ZoneId.of("Europe/Paris")).toLocalDateTime().toString())
                .isEqualTo("2026-03-30T02:30");   // 02:30 does not exist on the 29th (clocks go forward): cron-utils skips that night
        assertThat(daily.previous(next)).isLessThan(next);
        assertThat(daily.next(daily.previous(next))).isEqualTo(next);

        ScheduleSlots everySecond = ScheduleSlots.cron("* * * * * *", "UTC");
        assertThat(everySecond.next(10_500)).isEqualTo(11_000);
        assertThat(everySecond.next(11_000)).isEqualTo(12_000);
        assertThat(everySecond.previous(11_000)).isEqualTo(10_000);
        assertThat(everySecond.previous(11_001)).isEqualTo(11_000);
        assertThat(everySecond.count(10_000, 12_000, 100)).isEqualTo(3);
    }

    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    /** Every slot of {@code slots} in [from, to), as local times in Paris with their offsets. */
    private static List<String> slotsBetween(ScheduleSlots slots, ZonedDateTime from, ZonedDateTime to) {
        List<String> out = new java.util.ArrayList<>();
        for (long s = slots.next(from.toInstant().toEpochMilli() - 1); s < to.toInstant().toEpochMilli(); s = slots.next(s)) {
            out.add(Instant.ofEpochMilli(s).atZone(PARIS).toOffsetDateTime().toString());
        }
        return out;
    }

    /** Clocks go back at 03:00 CEST on 2026-10-25 in Paris: 02:00 to 02:59 happen twice. */
    @Test
    void whenClocksGoBackAFixedTimeFiresOnceAtItsFirstInstantAndAWildcardFiresInBoth() {
        ZonedDateTime saturday = ZonedDateTime.of(2026, 10, 24, 12, 0, 0, 0, PARIS);
        ZonedDateTime monday = ZonedDateTime.of(2026, 10, 26, 12, 0, 0, 0, PARIS);
        ScheduleSlots nightly = ScheduleSlots.cron("30 2 * * *", "Europe/Paris");

        assertThat(slotsBetween(nightly, saturday, monday)).containsExactly("2026-10-25T02:30+02:00", "2026-10-26T02:30+01:00");
        long second = ZonedDateTime.of(2026, 10, 25, 2, 30, 0, 0, PARIS).withLaterOffsetAtOverlap().toInstant().toEpochMilli();
        assertThat(Instant.ofEpochMilli(nightly.previous(second + 3_600_000)).atZone(PARIS).toOffsetDateTime().toString())
                .as("previous agrees with next").isEqualTo("2026-10-25T02:30+02:00");
        assertThat(nightly.count(saturday.toInstant().toEpochMilli(), monday.toInstant().toEpochMilli(), 100)).isEqualTo(2);
        long afterTheFirst = ZonedDateTime.of(2026, 10, 25, 2, 45, 0, 0, PARIS).withEarlierOffsetAtOverlap().toInstant().toEpochMilli();
        assertThat(Instant.ofEpochMilli(nightly.next(afterTheFirst)).atZone(PARIS).toOffsetDateTime().toString())
                .as("planned from within the repeated hour, after the first 02:30").isEqualTo("2026-10-26T02:30+01:00");

        ScheduleSlots halfHourly = ScheduleSlots.cron("*/30 * * * *", "Europe/Paris");
        ZonedDateTime from = ZonedDateTime.of(2026, 10, 25, 1, 45, 0, 0, PARIS);
        assertThat(slotsBetween(halfHourly, from, from.plusHours(3))).as("runs by elapsed time: every half hour of the day")
                .containsExactly("2026-10-25T02:00+02:00", "2026-10-25T02:30+02:00", "2026-10-25T02:00+01:00",
                        "2026-10-25T02:30+01:00", "2026-10-25T03:00+01:00", "2026-10-25T03:30+01:00");
        ScheduleSlots hourly = ScheduleSlots.cron("0 * * * *", "Europe/Paris");
        assertThat(slotsBetween(hourly, saturday.plusHours(12), saturday.plusHours(37))).as("a 25-hour day").hasSize(25);
    }

    /** Clocks go forward at 02:00 CET on 2026-03-29 in Paris: 02:00 to 02:59 do not exist. */
    @Test
    void whenClocksGoForwardATimeThatDoesNotExistThatNightDoesNotFire() {
        ZonedDateTime saturday = ZonedDateTime.of(2026, 3, 28, 12, 0, 0, 0, PARIS);
        ScheduleSlots nightly = ScheduleSlots.cron("30 2 * * *", "Europe/Paris");
        assertThat(slotsBetween(nightly, saturday, saturday.plusDays(2))).containsExactly("2026-03-30T02:30+02:00");

        ScheduleSlots halfHourly = ScheduleSlots.cron("*/30 * * * *", "Europe/Paris");
        ZonedDateTime from = ZonedDateTime.of(2026, 3, 29, 1, 15, 0, 0, PARIS);
        assertThat(slotsBetween(halfHourly, from, from.plusHours(2))).containsExactly(
                "2026-03-29T01:30+01:00", "2026-03-29T03:00+02:00", "2026-03-29T03:30+02:00", "2026-03-29T04:00+02:00");
    }

    @Test
    void badDefinitionsNameTheirField() {
        assertThatThrownBy(() -> ScheduleSlots.cron("61 * * * *", "UTC")).isInstanceOf(InvalidRequestException.class)
                .extracting("field").isEqualTo("cron");
        assertThatThrownBy(() -> ScheduleSlots.cron("* * * *", "UTC")).extracting("field").isEqualTo("cron");
        assertThatThrownBy(() -> ScheduleSlots.cron("* * * * *", "Mars/Olympus")).extracting("field").isEqualTo("zone");
    }

    @Test
    void aFirstPlanOnlyPlansTheFirstSlotAfterTheAnchor() {
        FiringPlan plan = FiringPlan.plan(SECOND, Misfire.SKIP, 1, 5_000, OptionalLong.empty(), 10_200, OptionalLong.empty(), 10_900);
        assertThat(plan.fire()).isEmpty();
        assertThat(plan.advancesOnly()).isTrue();
        assertThat(plan.nextSlotMs()).isEqualTo(11_000);
    }

    @Test
    void onTimeSlotsFireAndTheNextIsAfterNow() {
        FiringPlan plan = FiringPlan.plan(SECOND, Misfire.SKIP, 1, 5_000, OptionalLong.of(11_000), 0, OptionalLong.empty(), 12_300);
        assertThat(plan.fire()).containsExactly(11_000L, 12_000L);
        assertThat(plan.skipped()).isZero();
        assertThat(plan.nextSlotMs()).isEqualTo(13_000);
    }

    @Test
    void missedSlotsFollowThePolicy() {
        // Next slot 10 s; now 30.5 s; grace 5 s: 10..25 missed (16 slots), 26..30 on time (5).
        OptionalLong next = OptionalLong.of(10_000);
        FiringPlan skip = FiringPlan.plan(SECOND, Misfire.SKIP, 3, 5_000, next, 0, OptionalLong.empty(), 30_500);
        assertThat(skip.fire()).containsExactly(26_000L, 27_000L, 28_000L, 29_000L, 30_000L);
        assertThat(skip.skipped()).isEqualTo(16);
        assertThat(skip.latestSkipped()).hasValue(25_000);

        FiringPlan once = FiringPlan.plan(SECOND, Misfire.RUN_ONCE, 3, 5_000, next, 0, OptionalLong.empty(), 30_500);
        assertThat(once.fire()).startsWith(25_000L, 26_000L).hasSize(6);
        assertThat(once.skipped()).isEqualTo(15);
        assertThat(once.latestSkipped()).hasValue(24_000);

        FiringPlan each = FiringPlan.plan(SECOND, Misfire.RUN_EACH, 3, 5_000, next, 0, OptionalLong.empty(), 30_500);
        assertThat(each.fire()).startsWith(23_000L, 24_000L, 25_000L, 26_000L).hasSize(8);
        assertThat(each.skipped()).isEqualTo(13);
        assertThat(each.nextSlotMs()).isEqualTo(31_000);
    }

    @Test
    void slotsDueWhilePausedAreSkippedWhateverThePolicy() {
        FiringPlan plan = FiringPlan.plan(SECOND, Misfire.RUN_EACH, 100, 60_000, OptionalLong.of(10_000), 0,
                OptionalLong.of(20_500), 22_000);
        assertThat(plan.fire()).containsExactly(21_000L, 22_000L);
        assertThat(plan.skipped()).isEqualTo(11);
        assertThat(plan.latestSkipped()).hasValue(20_000);
        assertThat(List.of(plan.nextSlotMs())).containsExactly(23_000L);
    }
}
