package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.limits.LimitsSource;
import io.echomq.queue.limits.QueueLimits;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleClient;
import io.echomq.queue.schedule.ScheduleView;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Every server applies the limits and schedules of its configuration at each start; the last
 * change wins: what an admin changed over the API stands across restarts until the
 * configuration itself changes.
 */
class ConfiguredVersusApiChangesTest extends RealQueueTest {

    private static final QueueLimits CONFIGURED = QueueLimits.NONE.withMaxActive(50);
    private static final QueueLimits DURING_THE_INCIDENT = QueueLimits.NONE.withMaxActive(2);
    private static final QueueLimits NEXT_RELEASE = QueueLimits.NONE.withMaxActive(80);

    private Schedule nightly(String cron) {
        return Schedule.cron(queue, "nightly", cron, "Europe/Paris", "{\"report\":\"sales\"}");
    }

    @Test
    void limitsAnAdminLoweredOverTheApiStandWhenAServerRestartsWithTheSameConfiguration() {
        assertThat(client.admin().applyConfiguredLimits(queue, CONFIGURED)).isTrue();
        client.admin().setLimits(queue, DURING_THE_INCIDENT);

        assertThat(client.admin().applyConfiguredLimits(queue, CONFIGURED)).as("a restart, configuration unchanged").isFalse();
        assertThat(client.reads().limits(queue)).isEqualTo(DURING_THE_INCIDENT);
        assertThat(client.reads().limitsInForce(queue).source()).contains(LimitsSource.API);

        assertThat(client.admin().applyConfiguredLimits(queue, NEXT_RELEASE)).as("the configuration changed").isTrue();
        assertThat(client.reads().limits(queue)).isEqualTo(NEXT_RELEASE);
        assertThat(client.reads().limitsInForce(queue).source()).contains(LimitsSource.CONFIG);
    }

    @Test
    void configuredLimitsAppliedOnceChangeNothingOnTheNextStart() {
        assertThat(client.reads().limitsInForce(queue).source()).isEmpty();
        assertThat(client.admin().applyConfiguredLimits(queue, CONFIGURED)).isTrue();
        assertThat(client.admin().applyConfiguredLimits(queue, CONFIGURED)).isFalse();
        assertThat(client.reads().limits(queue)).isEqualTo(CONFIGURED);
        assertThat(client.reads().limitsInForce(queue).source()).contains(LimitsSource.CONFIG);
    }

    @Test
    void aScheduleChangedOverTheApiStandsUntilTheConfigurationChanges() {
        ScheduleClient schedules = client.schedules();
        assertThat(schedules.put(nightly("0 3 * * *"), "config")).isEqualTo(ScheduleClient.PutResult.CREATED);
        assertThat(schedules.put(nightly("0 3 * * *"), "config")).as("a restart").isEqualTo(ScheduleClient.PutResult.UNCHANGED);
        assertThat(schedules.put(nightly("0 5 * * *"), "api")).isEqualTo(ScheduleClient.PutResult.REPLACED);

        assertThat(schedules.put(nightly("0 3 * * *"), "config")).as("a restart").isEqualTo(ScheduleClient.PutResult.KEPT);
        ScheduleView kept = schedules.get(queue, "nightly").orElseThrow();
        assertThat(kept.definition().cron()).contains("0 5 * * *");
        assertThat(kept.source()).isEqualTo("api");
        assertThat(kept.version()).as("no version bumped back and forth").isEqualTo(2);

        assertThat(schedules.put(nightly("0 4 * * *"), "config")).as("the next release").isEqualTo(ScheduleClient.PutResult.REPLACED);
        ScheduleView released = schedules.get(queue, "nightly").orElseThrow();
        assertThat(released.definition().cron()).contains("0 4 * * *");
        assertThat(released.source()).isEqualTo("config");
    }

    @Test
    void aConfiguredScheduleRemovedOverTheApiDoesNotComeBackUntilTheConfigurationChanges() {
        ScheduleClient schedules = client.schedules();
        schedules.put(nightly("0 3 * * *"), "config");
        assertThat(schedules.remove(queue, "nightly")).isTrue();

        assertThat(schedules.put(nightly("0 3 * * *"), "config")).as("a restart").isEqualTo(ScheduleClient.PutResult.KEPT);
        assertThat(schedules.get(queue, "nightly")).isEmpty();
        assertThat(schedules.list(queue)).isEmpty();
        assertThat(schedules.remove(queue, "nightly")).as("already removed").isFalse();

        assertThat(schedules.put(nightly("0 4 * * *"), "config")).isEqualTo(ScheduleClient.PutResult.CREATED);
        assertThat(schedules.get(queue, "nightly")).isPresent();
    }

    @Test
    void aScheduleDefinedOnlyOverTheApiIsReplacedAndRemovedAsBefore() {
        ScheduleClient schedules = client.schedules();
        Schedule every = Schedule.every(queue, "often", Duration.ofMinutes(1), "{}");
        assertThat(schedules.put(every, "api")).isEqualTo(ScheduleClient.PutResult.CREATED);
        assertThat(schedules.put(every, "api")).isEqualTo(ScheduleClient.PutResult.UNCHANGED);
        assertThat(schedules.remove(queue, "often")).isTrue();
        assertThat(redis.exists(keys.schedule("often"))).as("nothing left behind").isFalse();
    }
}
