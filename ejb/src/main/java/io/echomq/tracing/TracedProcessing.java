package io.echomq.tracing;

import static io.echomq.tracing.Conventions.ATTEMPT;
import static io.echomq.tracing.Conventions.BATCH_COUNT;
import static io.echomq.tracing.Conventions.DB_SYSTEM;
import static io.echomq.tracing.Conventions.DESTINATION;
import static io.echomq.tracing.Conventions.ERROR_TYPE;
import static io.echomq.tracing.Conventions.LANE;
import static io.echomq.tracing.Conventions.MESSAGE_ID;
import static io.echomq.tracing.Conventions.MESSAGING_SYSTEM;
import static io.echomq.tracing.Conventions.OPERATION_NAME;
import static io.echomq.tracing.Conventions.OPERATION_TYPE;
import static io.echomq.tracing.Conventions.OUTCOME;

import io.echomq.queue.ClaimedJob;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.List;
import java.util.function.Supplier;

/**
 * A {@code process <queue>} span over one delivery, current on the runner's thread. It links to
 * each job's creation context; a single job's delivery is also the creation's child (the
 * conventions allow it where no ambient context exists, and a runner has none), so the HTTP
 * request that made a job and the worker that ran it are one trace. A batch, made by many
 * creations, only links.
 */
final class TracedProcessing implements Processing {

    private final TracedDeliveries deliveries;
    private final String queue;
    private final Tracer tracer;
    private final MessagingMetrics metrics;
    private final long startNanos = System.nanoTime();
    private final Span span;
    private final Scope scope;

    /** @param contexts the jobs' stored creation contexts, one per job; null when traces are off */
    TracedProcessing(TracedDeliveries deliveries, String queue, Tracer tracer, MessagingMetrics metrics, List<ClaimedJob> jobs,
            List<String> contexts) {
        this.deliveries = deliveries;
        this.queue = queue;
        this.tracer = tracer;
        this.metrics = metrics;
        this.span = tracer == null ? Span.getInvalid() : start(tracer, queue, jobs, contexts);
        this.scope = span.makeCurrent();
    }

    private static Span start(Tracer tracer, String queue, List<ClaimedJob> jobs, List<String> contexts) {
        SpanBuilder builder = tracer.spanBuilder("process " + queue).setSpanKind(SpanKind.CONSUMER)
                .setAttribute(MESSAGING_SYSTEM, Conventions.SYSTEM).setAttribute(DESTINATION, queue)
                .setAttribute(OPERATION_TYPE, "process").setAttribute(OPERATION_NAME, "process");
        for (String stored : contexts) {
            SpanContext creation = TraceCarrier.parse(stored);
            if (creation.isValid()) {
                builder.addLink(creation);
            }
        }
        if (jobs.size() == 1) {
            ClaimedJob job = jobs.get(0);
            SpanContext creation = TraceCarrier.parse(contexts.get(0));
            builder.setParent(creation.isValid() ? Context.root().with(Span.wrap(creation)) : Context.root())
                    .setAttribute(MESSAGE_ID, job.id()).setAttribute(ATTEMPT, job.attempt()).setAttribute(LANE, job.lane());
        } else {
            builder.setNoParent().setAttribute(BATCH_COUNT, (long) jobs.size());
        }
        return builder.startSpan();
    }

    @Override
    public <T> T effect(Supplier<T> transaction) {
        if (tracer == null) {
            return transaction.get();
        }
        Span effect = tracer.spanBuilder("effect " + queue).setAttribute(DB_SYSTEM, "postgresql").startSpan();
        try (Scope ignored = effect.makeCurrent()) {
            return transaction.get();
        } catch (RuntimeException | Error e) {
            effect.recordException(e);
            effect.setAttribute(ERROR_TYPE, e.getClass().getName());
            effect.setStatus(StatusCode.ERROR);
            throw e;
        } finally {
            effect.end();
        }
    }

    @Override
    public void settling(ClaimedJob job, String errorType) {
        if (metrics != null) {
            metrics.processed(queue, System.nanoTime() - startNanos, errorType);
        }
        if (tracer == null) {
            return;
        }
        if (span.getSpanContext().isValid()) {
            span.setAttribute(OUTCOME, Conventions.outcome(errorType));
            if (errorType != null) {
                span.setAttribute(ERROR_TYPE, errorType);
                if (!Conventions.CANCELLED.equals(errorType)) {
                    span.setStatus(StatusCode.ERROR);
                }
            }
        }
        deliveries.startSettling(span, job, errorType);
    }

    @Override
    public void close() {
        scope.close();
        span.end();
    }
}
