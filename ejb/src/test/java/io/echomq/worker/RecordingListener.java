package io.echomq.worker;

import io.echomq.effect.EffectOutcome;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what workers report, so tests wait on events (with Awaitility) instead of sleeping. */
public final class RecordingListener implements WorkerListener {

    final List<ClaimedJob> claims = new CopyOnWriteArrayList<>();
    final List<EffectOutcome> effects = new CopyOnWriteArrayList<>();
    final List<ClaimedJob> completions = new CopyOnWriteArrayList<>();
    final List<Rejected> rejectedCompletions = new CopyOnWriteArrayList<>();
    final List<RetryOutcome> retries = new CopyOnWriteArrayList<>();
    final List<String> errors = new CopyOnWriteArrayList<>();
    /** How many jobs each claim call leased (calls that asked for none are not reported). */
    final List<Integer> claimCalls = new CopyOnWriteArrayList<>();

    @Override
    public void claimed(ClaimedJob job) {
        claims.add(job);
    }

    @Override
    public void claimCall(String queue, Duration took, int jobs) {
        claimCalls.add(jobs);
    }

    @Override
    public void effect(ClaimedJob job, EffectOutcome outcome, Duration took) {
        effects.add(outcome);
    }

    @Override
    public void completed(ClaimedJob job) {
        completions.add(job);
    }

    @Override
    public void completionRejected(ClaimedJob job, Rejected rejected) {
        rejectedCompletions.add(rejected);
    }

    @Override
    public void retried(ClaimedJob job, RetryOutcome outcome, String error) {
        retries.add(outcome);
        errors.add(error);
    }
}
