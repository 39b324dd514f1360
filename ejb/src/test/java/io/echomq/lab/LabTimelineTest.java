package io.echomq.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lab.GuaranteesLab.Step;
import io.echomq.maintenance.Pass;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lab's timeline is told by two threads: the worker's claims and the reaper's runs. The
 * reaper reports when its run ends, which can be after the worker claimed the job it brought
 * back; the timeline still shows the reap first, once.
 */
class LabTimelineTest {

    private static final Pass ONE_REAP = new Pass(1, 0, 0, 0, 0, 0, 0, 0);

    @Test
    void aReapReportedAfterTheClaimItMadePossibleIsShownBeforeItAndOnce() {
        List<Step> steps = new ArrayList<>();
        LabTimeline timeline = new LabTimeline(steps);

        timeline.claimed(job(1));
        timeline.crashedAt(CrashPoint.ACK);
        timeline.claimed(job(2));
        timeline.ran("reaper", "lab", ONE_REAP, Duration.ofMillis(3));

        assertThat(steps).extracting(Step::step).containsExactly("claimed", "crashed", "reaped", "claimed");
    }

    @Test
    void aReapReportedBeforeTheNextClaimIsShownOnce() {
        List<Step> steps = new ArrayList<>();
        LabTimeline timeline = new LabTimeline(steps);

        timeline.claimed(job(1));
        timeline.crashedAt(CrashPoint.LEASE);
        timeline.ran("reaper", "lab", ONE_REAP, Duration.ofMillis(3));
        timeline.claimed(job(2));

        assertThat(steps).extracting(Step::step).containsExactly("claimed", "crashed", "reaped", "claimed");
    }

    private static ClaimedJob job(long attempt) {
        return new ClaimedJob(new Lease("lab", "1", 1L, attempt, null), "{}", "default", Instant.EPOCH);
    }
}
