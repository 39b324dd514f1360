package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.schedule.Misfire;
import io.echomq.queue.schedule.Schedule;
import io.echomq.queue.schedule.ScheduleView;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What a maintenance tick over a queue's schedules does when many come due at once. */
class ScheduleTickTest extends RealQueueTest {

    private static final int SCHEDULES = 1_500;
    private static final Duration EVERY = Duration.ofSeconds(5);
    /** As the engine's maintenance ticks each server's schedules: a fixed delay of its interval (1 s by default). */
    private static final Duration TICK = Duration.ofSeconds(1);

    /**
     * 1,500 schedules with policy {@code skip} come due together, again and again, while two
     * servers tick: each slot fires within the misfire grace (10 s), none is skipped. A tick that
     * read only the first 100 due schedules, the same 100 on every server, fired about 100 a
     * second and skipped the slots it reached too late.
     */
    @Test
    void manySchedulesDueTogetherAllFireWithinTheGraceAndNoneIsSkipped() throws Exception {
        for (int i = 0; i < SCHEDULES; i++) {
            client.schedules().put(Schedule.every(queue, "report-" + i, EVERY, "{}").withMisfire(Misfire.SKIP, 1), "api");
        }
        long end = serverNowMs() + EVERY.toMillis() + Schedule.DEFAULT_MISFIRE_GRACE.toMillis() + 3_000;
        ScheduledExecutorService servers = Executors.newScheduledThreadPool(2);
        try {
            for (int server = 0; server < 2; server++) {
                servers.scheduleWithFixedDelay(() -> client.schedules().tick(queue), 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
            }
            // The servers run for a stretch of the server's clock: the load's length, not a wait for an event.
            Thread.sleep(Math.max(0, end - serverNowMs()));
            awaitServerTime(end);
        } finally {
            servers.shutdown();
            assertThat(servers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }

        List<ScheduleView> schedules = client.schedules().list(queue);
        assertThat(schedules).hasSize(SCHEDULES);
        assertThat(schedules.stream().filter(s -> s.skipped() > 0).count()).as("schedules that skipped a slot as missed").isZero();
        assertThat(schedules.stream().filter(s -> s.fired() < 2).count()).as("schedules that fired fewer than two slots").isZero();
        assertThat(client.reads().stats(queue).total()).as("one job per fired slot")
                .isEqualTo(schedules.stream().mapToLong(ScheduleView::fired).sum());
    }
}
