package io.echomq.worker;

import io.echomq.effect.EffectContendedException;
import io.echomq.effect.EffectFailedException;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectStore;
import io.echomq.handler.BatchJobHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import io.echomq.handler.PermanentJobFailure;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Lease;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueUnavailableException;
import io.echomq.queue.RetryOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/**
 * One delivery of one job, or of a batch, start to settlement: the effect transaction, then
 * the acknowledgement, handed to the worker, which sends it fenced by the lease's token; a
 * failed effect is reported for retry. The order is the guarantee: the acknowledgement is
 * handed over only after the effect committed, so a crash in between redelivers the job, and
 * the effect store makes that redelivery skip the effect.
 */
final class JobExecution {

    private static final Logger LOG = Logger.getLogger(JobExecution.class.getName());

    private final QueueClient queue;
    private final EffectStore effects;
    private final JobHandler handler;
    private final WorkerSettings settings;
    private final LeaseKeeper keeper;
    private final FaultInjector faults;
    private final WorkerListener listener;
    private final Consumer<ClaimedJob> acknowledge;
    private final boolean batched;

    JobExecution(QueueClient queue, EffectStore effects, JobHandler handler, WorkerSettings settings, LeaseKeeper keeper,
            FaultInjector faults, WorkerListener listener, Consumer<ClaimedJob> acknowledge) {
        this.queue = queue;
        this.effects = effects;
        this.handler = handler;
        this.settings = settings;
        this.keeper = keeper;
        this.faults = faults;
        this.listener = listener;
        this.acknowledge = acknowledge;
        this.batched = handler instanceof BatchJobHandler && settings.batchSize() > 1;
    }

    /** Whether batches of jobs go through one transaction: the handler can apply them set-wise. */
    boolean batched() {
        return batched;
    }

    /** Runs the jobs on the calling thread, as one batch when batched; returns when all are settled or abandoned. */
    void run(List<ClaimedJob> jobs) {
        jobs.forEach(listener::claimed);
        if (jobs.size() > 1 && handler instanceof BatchJobHandler batchHandler) {
            runBatch(jobs, batchHandler);
        } else {
            jobs.forEach(this::runOne);
        }
    }

    private void runOne(ClaimedJob job) {
        RunningWork work = keeper.track(List.of(job));
        try {
            pass(CrashPoint.LEASE, List.of(job));
            long start = System.nanoTime();
            EffectOutcome outcome = effects.apply(job.lease(), tx -> handler.handle(context(job, tx)));
            report(job, outcome, Duration.ofNanos(System.nanoTime() - start));
            settle(List.of(job), work);
        } catch (SimulatedCrash crash) {
            // Reported where it happened; like a dead process, this delivery does nothing more.
        } catch (EffectFailedException failed) {
            Throwable cause = failed.getCause();
            boolean timedOut = work.timedOut();
            String error = timedOut ? "timed out after " + settings.jobTimeout().toMillis() + " ms: " + cause : String.valueOf(cause);
            retry(job, error, cause instanceof PermanentJobFailure && !timedOut);
        } catch (EffectContendedException contended) {
            retry(job, contended.getMessage(), false);
        } catch (QueueUnavailableException unavailable) {
            listener.abandoned(job, unavailable);
        } catch (RuntimeException unexpected) {
            // The database is down, a connection broke mid-transaction, ...: the effect did not
            // commit (or its outcome is unknown, which the effect store makes safe to retry).
            retry(job, unexpected.toString(), false);
        } finally {
            keeper.release(work);
        }
    }

    /**
     * Hands the outcome to the listener. A job whose handler was skipped because another job with
     * its idempotency key applied the effect is logged too: it is a resubmission Valkey did not
     * recognise (the first job was trimmed, or lost in a failover), and operators should see it.
     */
    private void report(ClaimedJob job, EffectOutcome outcome, Duration took) {
        if (outcome instanceof EffectOutcome.AlreadyApplied skipped && skipped.byAnotherJob()) {
            LOG.log(Level.INFO, "queue ''{0}'', {1}", new Object[] {job.lease().queue(), skipped.describe()});
        }
        listener.effect(job, outcome, took);
    }

    /**
     * The batch in one transaction. If it fails before committing (a poison job, a key held by
     * a zombie, the timeout), nothing of it committed: each job then runs alone, so only the
     * culprit fails.
     */
    private void runBatch(List<ClaimedJob> jobs, BatchJobHandler batchHandler) {
        RunningWork work = keeper.track(jobs);
        try {
            pass(CrashPoint.LEASE, jobs);
            Map<String, ClaimedJob> byId = jobs.stream().collect(Collectors.toMap(ClaimedJob::id, Function.identity()));
            long start = System.nanoTime();
            List<EffectOutcome> outcomes;
            try {
                outcomes = effects.applyAll(jobs.stream().map(ClaimedJob::lease).toList(), (tx, recorded) ->
                        batchHandler.handleBatch(recorded.stream().map(l -> context(byId.get(l.jobId()), tx)).toList()));
            } catch (RuntimeException failed) {
                LOG.log(Level.FINE, "batch of {0} jobs on queue ''{1}'' failed ({2}); running them one by one",
                        new Object[] {jobs.size(), jobs.get(0).lease().queue(), failed.toString()});
                keeper.release(work);
                jobs.forEach(this::runOne);
                return;
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            for (int i = 0; i < jobs.size(); i++) {
                report(jobs.get(i), outcomes.get(i), took);
            }
            settle(jobs, work);
        } catch (SimulatedCrash crash) {
            // Reported where it happened; like a dead process, this delivery does nothing more.
        } finally {
            keeper.release(work);
        }
    }

    /** After the commit: stop keeping the leases, then hand over the acknowledgements. */
    private void settle(List<ClaimedJob> jobs, RunningWork work) {
        pass(CrashPoint.EFFECT, jobs);
        keeper.release(work);
        pass(CrashPoint.ACK, jobs);
        jobs.forEach(acknowledge);
        pass(CrashPoint.DONE, jobs);
    }

    /** Lets every job pass a crash point; a simulated crash is reported for the job it hit. */
    private void pass(CrashPoint point, List<ClaimedJob> jobs) {
        for (ClaimedJob job : jobs) {
            try {
                faults.at(point, job);
            } catch (SimulatedCrash crash) {
                listener.crashed(job, point);
                throw crash;
            }
        }
    }

    private static JobContext context(ClaimedJob job, Handle tx) {
        Lease lease = job.lease();
        return new JobContext(lease.queue(), job.id(), lease.jobCreatedMs(), job.attempt(), job.lane(), job.payload(), tx);
    }

    private void retry(ClaimedJob job, String error, boolean terminal) {
        try {
            RetryOutcome outcome = queue.retry(job.lease(), error, settings.backoff(), terminal);
            listener.retried(job, outcome, error);
        } catch (QueueUnavailableException e) {
            listener.abandoned(job, e);
        }
    }
}
