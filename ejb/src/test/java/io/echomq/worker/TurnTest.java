package io.echomq.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectRecord;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.CompletedAndClaimed;
import io.echomq.queue.JobState;
import io.echomq.queue.Lease;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.Rejected;
import io.echomq.queue.Settlement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The turn protocol and the acknowledgement batching, without servers: a scripted Valkey call
 * stands in for {@code complete-claim}, and the test reads what each turn sent and handed out.
 */
class TurnTest {

    private static final String QUEUE = "turns";

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final RecordingListener events = new RecordingListener();
    private final List<List<Lease>> sentAcknowledgements = new ArrayList<>();
    private final List<Integer> wantedPerCall = new ArrayList<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    /** How many jobs the scripted queue still holds. */
    private int queued;
    private boolean valkeyDown;

    private final WorkerSettings settings = WorkerSettings.DEFAULT.withConcurrency(4);
    private final LeaseKeeper keeper = LeaseKeeper.start(timers, null, settings, events);
    private final Completer completer = new Completer(null, settings, FaultInjector.NONE, events);

    @AfterEach
    void stop() {
        keeper.stop();
        timers.shutdownNow();
    }

    private Turn turn(int portionSize, LeaseAhead ahead) {
        return new Turn(QUEUE, "w", this::completeAndClaim, portionSize, Duration.ofMillis(200), Duration.ZERO, completer, ahead, keeper, events);
    }

    private CompletedAndClaimed completeAndClaim(List<Lease> acknowledgements, int wanted, Duration idleTurn) {
        if (valkeyDown) {
            throw new QueueUnavailableException("Valkey is down", null);
        }
        sentAcknowledgements.add(acknowledgements);
        wantedPerCall.add(wanted);
        List<Settlement> settlements = acknowledgements.stream()
                .map(l -> l.token() == 99 ? (Settlement) new Rejected(l, Rejected.Reason.STALE_TOKEN, Optional.of(JobState.ACTIVE), 100)
                        : new Settlement.Completed(l, Instant.EPOCH))
                .toList();
        List<ClaimedJob> claimed = new ArrayList<>();
        while (claimed.size() < wanted && queued > 0) {
            queued--;
            claimed.add(job(nextId.getAndIncrement(), 1));
        }
        return new CompletedAndClaimed(settlements, claimed);
    }

    private static ClaimedJob job(int id, long token) {
        return new ClaimedJob(new Lease(QUEUE, Integer.toString(id), 1_000, token), "{}", "default", Instant.EPOCH.plusSeconds(30));
    }

    private void done(ClaimedJob job) {
        EffectRecord record = new EffectRecord(QUEUE, job.id(), 1_000, job.attempt(), Instant.EPOCH);
        completer.settle(new JobOutcome.Done(job, new EffectOutcome.Applied(job.lease(), record), Duration.ZERO));
    }

    @Test
    void oneTurnAcknowledgesEveryCommittedJobAndLeasesForEveryFreeRunner() {
        queued = 10;
        Turn turn = turn(1, new LeaseAhead(4, false));
        done(job(101, 1));
        done(job(102, 1));
        done(job(103, 1));

        List<RunningWork> portions = turn.roundTrip(3, false);

        assertThat(sentAcknowledgements).hasSize(1);
        assertThat(sentAcknowledgements.get(0)).extracting(Lease::jobId).containsExactly("101", "102", "103");
        assertThat(wantedPerCall).containsExactly(3);
        assertThat(portions).hasSize(3).allSatisfy(p -> assertThat(p.jobs()).hasSize(1));
        assertThat(events.completions).extracting(ClaimedJob::id).containsExactly("101", "102", "103");
        assertThat(completer.hasAcknowledgements()).isFalse();
    }

    @Test
    void aRefusedAcknowledgementIsReportedAndNotCountedCompleted() {
        Turn turn = turn(1, new LeaseAhead(4, false));
        done(job(7, 99));

        turn.roundTrip(0, false);

        assertThat(events.completions).isEmpty();
        assertThat(events.rejectedCompletions).singleElement().satisfies(r -> assertThat(r.lease().jobId()).isEqualTo("7"));
    }

    @Test
    void acknowledgementsOfAFailedTurnGoToTheNextOne() {
        Turn turn = turn(1, new LeaseAhead(4, false));
        done(job(1, 1));
        valkeyDown = true;

        assertThat(turn.roundTrip(2, false)).isEmpty();
        assertThat(completer.hasAcknowledgements()).isTrue();
        assertThat(turn.due()).as("no turn while Valkey backs off").isFalse();

        valkeyDown = false;
        turn.roundTrip(0, false);
        assertThat(sentAcknowledgements).singleElement().satisfies(acks -> assertThat(acks).extracting(Lease::jobId).containsExactly("1"));
        assertThat(events.completions).hasSize(1);
    }

    @Test
    void batchesAreCutEvenlyAndNeverMoreThanFreeRunners() {
        queued = 250;
        Turn turn = turn(100, new LeaseAhead(4, false));

        List<RunningWork> portions = turn.roundTrip(2, false);

        assertThat(wantedPerCall).containsExactly(200);
        assertThat(portions).hasSize(2).allSatisfy(p -> assertThat(p.jobs()).hasSize(100));
    }

    @Test
    void shortJobsAreLeasedAheadUpToTwoPerRunnerAndLongOnesNever() {
        queued = 100;
        LeaseAhead ahead = new LeaseAhead(4, true);
        Turn turn = turn(1, ahead);
        assertThat(turn.roundTrip(1, false)).hasSize(1);
        assertThat(wantedPerCall).as("no job has run yet: nothing is leased ahead").containsExactly(1);

        ahead.recordDuration(Duration.ofMillis(1).toNanos());
        turn.roundTrip(1, false);
        assertThat(wantedPerCall.get(1)).isEqualTo(1 + LeaseAhead.AHEAD_PER_RUNNER * 4);

        ahead.recordDuration(Duration.ofSeconds(1).toNanos());
        ahead.recordDuration(Duration.ofSeconds(1).toNanos());
        for (RunningWork w; (w = ahead.poll()) != null; ) {
            keeper.release(w);
        }
        turn.roundTrip(1, false);
        assertThat(wantedPerCall.get(2)).as("long jobs: only for the free runner").isEqualTo(1);
    }

    @Test
    void aStoppingWorkerOnlySendsAcknowledgements() {
        queued = 10;
        LeaseAhead ahead = new LeaseAhead(4, true);
        ahead.recordDuration(1);
        Turn turn = turn(1, ahead);
        done(job(5, 1));

        assertThat(turn.roundTrip(0, true)).isEmpty();

        assertThat(wantedPerCall).containsExactly(0);
        assertThat(events.completions).hasSize(1);
    }
}
