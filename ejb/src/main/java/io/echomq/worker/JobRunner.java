package io.echomq.worker;

import io.echomq.effect.EffectContendedException;
import io.echomq.effect.EffectFailedException;
import io.echomq.effect.EffectOutcome;
import io.echomq.effect.EffectStore;
import io.echomq.handler.BatchJobHandler;
import io.echomq.handler.JobCancelledException;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import io.echomq.api.PermanentJobFailure;
import io.echomq.outbox.Outbox;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.WorkerLeases;
import io.echomq.queue.FailureKind;
import io.echomq.queue.FlowChild;
import io.echomq.queue.JobIdentity;
import io.echomq.queue.Lease;
import jakarta.json.JsonValue;
import io.echomq.tracing.Deliveries;
import io.echomq.tracing.Processing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.sql.SQLException;
import org.jdbi.v3.core.Handle;
import org.postgresql.PGConnection;

/**
 * Runs the effect of one portion of work, one job or a batch, in the effect store, and says
 * what came of each job. It never talks to Valkey: what happens next (acknowledge, retry,
 * dead-letter) is the {@link Completer}'s to decide and send.
 *
 * <p>Invariant: a job's outcome is handed on only after its effect transaction ended, so a
 * {@link JobOutcome.Done} always stands for a committed effect.
 */
final class JobRunner {

    private static final Logger LOG = Logger.getLogger(JobRunner.class.getName());

    private final EffectStore effects;
    private final Outbox outbox;
    private final JobHandler handler;
    private final WorkerSettings settings;
    private final LeaseKeeper keeper;
    private final FaultInjector faults;
    private final WorkerListener listener;
    private final Deliveries deliveries;
    private final boolean batched;
    /** Where a flow parent's handler reads its children's outcomes. */
    private final WorkerLeases leases;

    JobRunner(EffectStore effects, Outbox outbox, JobHandler handler, WorkerSettings settings, LeaseKeeper keeper, FaultInjector faults,
            WorkerListener listener, WorkerLeases leases, Deliveries deliveries) {
        this.leases = leases;
        this.effects = effects;
        this.outbox = outbox;
        this.handler = handler;
        this.settings = settings;
        this.keeper = keeper;
        this.faults = faults;
        this.listener = listener;
        this.deliveries = deliveries;
        this.batched = handler instanceof BatchJobHandler && settings.batchSize() > 1;
    }

    /** Whether batches of jobs go through one transaction: the handler can apply them set-wise. */
    boolean batched() {
        return batched;
    }

    /**
     * Runs the work, which the calling runner has started, and hands each job's outcome to
     * {@code settle} as soon as it is known (in a batch's one-by-one fallback, job by job).
     *
     * @throws FaultInjector.Crash the delivery died where the injector said: nothing more is to be done
     */
    void run(RunningWork work, List<ClaimedJob> jobs, Consumer<JobOutcome> settle) {
        jobs.forEach(listener::claimed);
        if (jobs.size() > 1 && handler instanceof BatchJobHandler batchHandler) {
            runBatch(work, jobs, batchHandler, settle);
        } else {
            for (ClaimedJob job : jobs) {
                runDelivery(job, work, settle);
            }
        }
    }

    /** One job in a delivery of its own: its settlement starts inside the delivery, so it belongs to it. */
    private void runDelivery(ClaimedJob job, RunningWork work, Consumer<JobOutcome> settle) {
        try (Processing processing = deliveries.processing(job)) {
            JobOutcome outcome = runOne(job, work, processing);
            processing.settling(job, outcome.errorType());
            settle.accept(outcome);
        }
    }

    private JobOutcome runOne(ClaimedJob job, RunningWork work, Processing processing) {
        faults.leased(job);
        long start = System.nanoTime();
        try {
            List<DeliveryOutputs> outputs = new ArrayList<>(1);
            EffectOutcome outcome = processing.effect(() -> effects.apply(job.lease(), tx -> cancellableAtTimeout(work, tx, () -> {
                handler.handle(context(job, tx, work, outputs));
                recordResults(tx, outputs);
            })));
            committed(outputs);
            return new JobOutcome.Done(job, outcome, Duration.ofNanos(System.nanoTime() - start));
        } catch (EffectFailedException failed) {
            Throwable cause = failed.getCause();
            boolean timedOut = work.timedOut();
            if (work.signals(job).cancelRequested()) {
                // Rolled back, and an operator asked to cancel: whatever stopped it, it ends cancelled.
                return new JobOutcome.Stopped(job, cause instanceof JobCancelledException ? "the handler stopped"
                        : (timedOut ? "timed out" : "failed") + " after the cancel request: " + cause);
            }
            String error = timedOut ? "timed out after " + settings.jobTimeout().toMillis() + " ms: " + cause : String.valueOf(cause);
            return new JobOutcome.Failed(job, error,
                    cause instanceof PermanentJobFailure && !timedOut ? FailureKind.PERMANENT : FailureKind.RETRYABLE);
        } catch (EffectContendedException contended) {
            // The key's holder (a zombie) commits or is cut off soon; waiting out the backoff
            // for it must not use up the job's attempts.
            return new JobOutcome.Failed(job, contended.getMessage(), FailureKind.CONTENDED);
        } catch (RuntimeException | Error unexpected) {
            // The database is down, a connection broke mid-transaction, the handler threw an
            // Error of its own (StackOverflowError, AssertionError, ...): the effect did not
            // commit, or its outcome is unknown, which the effect store makes safe to retry.
            rethrowIfVirtualMachineError(unexpected);
            return new JobOutcome.Failed(job, unexpected.toString(), FailureKind.RETRYABLE);
        }
    }

    /**
     * The batch in one transaction. If it fails before committing (a poison job, a key held by
     * a zombie, the timeout), nothing of it committed: each job then runs alone, so only the
     * culprit fails, while the jobs waiting their turn keep their leases.
     */
    private void runBatch(RunningWork work, List<ClaimedJob> jobs, BatchJobHandler batchHandler, Consumer<JobOutcome> settle) {
        jobs.forEach(faults::leased);
        Map<String, ClaimedJob> byId = jobs.stream().collect(Collectors.toMap(ClaimedJob::id, Function.identity()));
        long start = System.nanoTime();
        List<EffectOutcome> outcomes;
        List<DeliveryOutputs> outputs = new ArrayList<>(jobs.size());
        try (Processing processing = deliveries.processingBatch(jobs)) {
            try {
                outcomes = processing.effect(() -> effects.applyAll(jobs.stream().map(ClaimedJob::lease).toList(),
                        (tx, recorded) -> cancellableAtTimeout(work, tx, () -> {
                            batchHandler.handleBatch(recorded.stream().map(l -> context(byId.get(l.jobId()), tx, work, outputs)).toList());
                            recordResults(tx, outputs);
                        })));
                committed(outputs);
            } catch (RuntimeException | Error failed) {
                rethrowIfVirtualMachineError(failed);
                LOG.log(Level.FINE, "batch of {0} jobs on queue ''{1}'' failed ({2}); running them one by one",
                        new Object[] {jobs.size(), jobs.get(0).lease().queue(), failed.toString()});
                runOneByOne(work, jobs, settle);
                return;
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            for (int i = 0; i < jobs.size(); i++) {
                processing.settling(jobs.get(i), null);
                settle.accept(new JobOutcome.Done(jobs.get(i), outcomes.get(i), took));
            }
        }
    }

    /** Each job alone, with a timeout of its own; the batch's work keeps the others' leases meanwhile. */
    private void runOneByOne(RunningWork batch, List<ClaimedJob> jobs, Consumer<JobOutcome> settle) {
        batch.pause();
        for (ClaimedJob job : jobs) {
            RunningWork alone = keeper.trackAlone(job, batch);
            try (Processing processing = deliveries.processing(job)) {
                JobOutcome outcome;
                try {
                    outcome = runOne(job, alone, processing);
                } finally {
                    keeper.release(alone);
                }
                processing.settling(job, outcome.errorType());
                settle.accept(outcome);
            }
        }
    }

    /**
     * The JVM's own distress (OutOfMemoryError, InternalError, ...) is not a job's failure: it
     * stops the runner. A StackOverflowError is the handler's own recursion, and its stack is
     * unwound by now: that job fails, like any other error it throws.
     */
    static void rethrowIfVirtualMachineError(Throwable e) {
        if (e instanceof VirtualMachineError fatal && !(e instanceof StackOverflowError)) {
            throw fatal;
        }
    }

    /** The handler's code, whose SQL the work's timeout cancels; only while it runs, so a cancel never reaches a pooled connection's next user. */
    private static void cancellableAtTimeout(RunningWork work, Handle tx, HandlerCall call) throws Exception {
        work.onTimeout(() -> cancelStatement(tx));
        try {
            call.run();
        } finally {
            work.onTimeout(null);
        }
    }

    @FunctionalInterface
    private interface HandlerCall {
        void run() throws Exception;
    }

    /**
     * Cancels whatever statement the effect transaction runs now (PostgreSQL's cancel request,
     * on a connection of its own), so a handler blocked in SQL past its timeout fails, its
     * transaction rolls back and the job's effect key is free for the next attempt. If the
     * cancel meets the COMMIT, the outcome may be unknown to this attempt; the next one finds
     * the effect recorded or not, so it is never applied twice.
     */
    private static void cancelStatement(Handle tx) {
        try {
            tx.getConnection().unwrap(PGConnection.class).cancelQuery();
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.WARNING, "could not cancel the SQL of a job past its timeout; it ends at lock or statement limits", e);
        }
    }

    /** The handler's view of one job in {@code tx}; its outputs join {@code outputs}, to be written before the commit. */
    private JobContext context(ClaimedJob job, Handle tx, RunningWork work, List<DeliveryOutputs> outputs) {
        Lease lease = job.lease();
        DeliveryOutputs out = new DeliveryOutputs(job, tx, outbox);
        outputs.add(out);
        return new JobContext(lease.queue(), job.id(), lease.jobCreatedMs(), job.attempt(), job.lane(), job.payload(), tx,
                new FlowParentSignals(work.signals(job), () -> withResults(lease, leases.flowChildren(lease), tx)), out);
    }

    /** A parent's children with each one's result, read in the parent's own effect transaction {@code tx}. */
    private List<FlowChild> withResults(Lease parent, List<FlowChild> children, Handle tx) {
        JobIdentity parentIdentity = new JobIdentity(parent.queue(), parent.jobId(), parent.jobCreatedMs(), null);
        Map<FlowChild, JobIdentity> made = new LinkedHashMap<>();
        children.forEach(child -> child.identity(parentIdentity).ifPresent(identity -> made.put(child, identity)));
        if (made.isEmpty()) {
            return children;
        }
        Map<JobIdentity, Optional<JsonValue>> results = effects.resultsIn(tx, List.copyOf(made.values()));
        return children.stream()
                .map(child -> made.containsKey(child) ? child.withResult(results.get(made.get(child))) : child)
                .toList();
    }

    /** The handlers' results go into their effect rows after the handlers returned, in the same transaction. */
    private void recordResults(Handle tx, List<DeliveryOutputs> outputs) {
        Map<Lease, String> results = null;
        for (DeliveryOutputs out : outputs) {
            if (out.result() != null) {
                if (results == null) {
                    results = new LinkedHashMap<>();
                }
                results.put(out.lease(), out.result());
            }
        }
        if (results != null) {
            effects.recordResults(tx, results);
        }
    }

    /** After the commit, never before: the relay must not find the rows missing and wait a poll interval for them. */
    private void committed(List<DeliveryOutputs> outputs) {
        if (outputs.stream().anyMatch(DeliveryOutputs::wroteFollowUps)) {
            outbox.committed();
        }
    }
}
