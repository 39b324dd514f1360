package io.echomq.tracing;

import static io.echomq.tracing.Conventions.DESTINATION;
import static io.echomq.tracing.Conventions.ERROR_TYPE;
import static io.echomq.tracing.Conventions.MESSAGE_ID;
import static io.echomq.tracing.Conventions.MESSAGING_SYSTEM;
import static io.echomq.tracing.Conventions.OPERATION_NAME;
import static io.echomq.tracing.Conventions.OPERATION_TYPE;
import static io.echomq.tracing.Conventions.SETTLEMENT;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Rejected;
import io.echomq.queue.RetryOutcome;
import io.echomq.queue.StopOutcome;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The deliveries of one worker, traced and metered. A {@code settle} span starts when a run's
 * outcome is known and ends when the worker reports what the queue made of it; an
 * acknowledgement goes out with a later turn, so the span waits here, keyed by the job's lease.
 */
final class TracedDeliveries implements Deliveries {

    /**
     * Settlements waiting for the queue's answer. A worker stopped before it could send its
     * acknowledgements never ends theirs; past this many, new settlements go untraced rather than
     * the map growing.
     */
    private static final int MAX_WAITING_SETTLEMENTS = 10_000;
    private static final Logger LOG = Logger.getLogger(TracedDeliveries.class.getName());

    private final String queue;
    private final long leaseMillis;
    private final Tracer tracer;
    private final MessagingMetrics metrics;
    private final CreationContexts stored;
    private final Map<ClaimedJob, Span> settling = new ConcurrentHashMap<>();

    /** @param tracer null when traces are off; {@code metrics} null when metrics are */
    TracedDeliveries(String queue, Duration lease, Tracer tracer, MessagingMetrics metrics, CreationContexts stored) {
        this.queue = queue;
        this.leaseMillis = lease.toMillis();
        this.tracer = tracer;
        this.metrics = metrics;
        this.stored = stored;
    }

    @Override
    public Processing processing(ClaimedJob job) {
        return processingBatch(List.of(job));
    }

    @Override
    public Processing processingBatch(List<ClaimedJob> jobs) {
        if (metrics != null) {
            for (ClaimedJob job : jobs) {
                // The claim's time on the server clock: its lease deadline less the lease it was given.
                metrics.queued(queue, job.leaseUntil().toEpochMilli() - leaseMillis - job.lease().jobCreatedMs());
            }
        }
        List<String> contexts = tracer == null ? null : creationContexts(jobs);
        return new TracedProcessing(this, queue, tracer, metrics, jobs, contexts);
    }

    /**
     * The jobs' stored creation contexts; none when they cannot be read (Valkey failing): the
     * delivery then starts a trace of its own, and the job's fate never depends on its telemetry.
     */
    private List<String> creationContexts(List<ClaimedJob> jobs) {
        try {
            return stored.of(jobs.stream().map(ClaimedJob::id).toList());
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "creation contexts of " + jobs.size() + " jobs of queue '" + queue + "' unread; their deliveries are not linked", e);
            return Collections.nCopies(jobs.size(), null);
        }
    }

    @Override
    public boolean on() {
        return true;
    }

    /** A {@code settle} span under {@code process}, for the job whose run came to {@code errorType}. */
    void startSettling(Span process, ClaimedJob job, String errorType) {
        if (tracer == null || settling.size() >= MAX_WAITING_SETTLEMENTS) {
            return;
        }
        String operation = errorType == null ? "complete" : Conventions.CANCELLED.equals(errorType) ? "stop" : "retry";
        Span span = tracer.spanBuilder("settle " + queue).setSpanKind(SpanKind.CLIENT).setParent(Context.root().with(process))
                .setAttribute(MESSAGING_SYSTEM, Conventions.SYSTEM).setAttribute(DESTINATION, queue)
                .setAttribute(OPERATION_TYPE, "settle").setAttribute(OPERATION_NAME, operation).setAttribute(MESSAGE_ID, job.id())
                .startSpan();
        Span earlier = settling.put(job, span);
        if (earlier != null) {
            earlier.end();
        }
    }

    @Override
    public void completed(ClaimedJob job) {
        settled(job, "completed", null);
    }

    @Override
    public void completionRejected(ClaimedJob job, Rejected rejected) {
        settled(job, "rejected", null);
    }

    @Override
    public void retried(ClaimedJob job, RetryOutcome outcome, String error) {
        String settlement = outcome instanceof RetryOutcome.Scheduled ? "retried"
                : outcome instanceof RetryOutcome.DeadLettered ? "dead"
                : outcome instanceof RetryOutcome.Cancelled ? "cancelled" : "rejected";
        settled(job, settlement, null);
    }

    @Override
    public void stopped(ClaimedJob job, StopOutcome outcome) {
        settled(job, outcome instanceof Rejected ? "rejected" : "cancelled", null);
    }

    @Override
    public void abandoned(ClaimedJob job, Exception cause) {
        settled(job, "abandoned", cause);
    }

    private void settled(ClaimedJob job, String settlement, Exception failure) {
        Span span = settling.remove(job);
        if (span == null) {
            return;
        }
        span.setAttribute(SETTLEMENT, settlement);
        if (failure != null) {
            span.recordException(failure);
            span.setAttribute(ERROR_TYPE, failure.getClass().getName());
            span.setStatus(StatusCode.ERROR);
        }
        span.end();
    }
}
