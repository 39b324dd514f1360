package io.echomq.tracing;

import static io.echomq.tracing.Conventions.BATCH_COUNT;
import static io.echomq.tracing.Conventions.DESTINATION;
import static io.echomq.tracing.Conventions.ERROR_TYPE;
import static io.echomq.tracing.Conventions.MESSAGE_ID;
import static io.echomq.tracing.Conventions.MESSAGING_SYSTEM;
import static io.echomq.tracing.Conventions.OPERATION_NAME;
import static io.echomq.tracing.Conventions.OPERATION_TYPE;
import static io.echomq.tracing.Conventions.SCHEDULE;
import static io.echomq.tracing.Conventions.SUBMISSION;

import io.echomq.queue.Enqueued;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@link JobTelemetry} over an {@link OpenTelemetry}: the server's (MicroProfile Telemetry,
 * configured by the standard {@code OTEL_*} settings), or one a test or an application built.
 * Spans follow the messaging conventions: {@code send <queue>} (producer) where jobs are made,
 * {@code process <queue>} (consumer) per delivery, {@code effect <queue>} and
 * {@code settle <queue>} (client) under it.
 */
public final class OpenTelemetryJobs implements JobTelemetry {

    /** The instrumentation scope of every span and metric EchoMQ makes. */
    static final String SCOPE = "io.echomq";

    private final Tracer tracer;
    private final MessagingMetrics metrics;

    private OpenTelemetryJobs(Tracer tracer, MessagingMetrics metrics) {
        this.tracer = tracer;
        this.metrics = metrics;
    }

    /**
     * Telemetry over {@code openTelemetry}; {@link JobTelemetry#OFF} when it records nothing (the
     * API's no-op, as MicroProfile Telemetry gives while {@code OTEL_SDK_DISABLED} is true), so
     * that off costs nothing. Traces off and metrics on (or the reverse) is honoured: no context
     * is stored or read without traces.
     */
    public static JobTelemetry of(OpenTelemetry openTelemetry) {
        boolean traces = records(openTelemetry.getTracerProvider());
        boolean metered = openTelemetry.getMeterProvider() != MeterProvider.noop();
        if (!traces && !metered) {
            return JobTelemetry.OFF;
        }
        return new OpenTelemetryJobs(traces ? openTelemetry.getTracer(SCOPE) : null,
                metered ? new MessagingMetrics(openTelemetry.getMeter(SCOPE)) : null);
    }

    /**
     * Whether spans of {@code provider} record. A probe span is started and never ended, so it is
     * exported nowhere; a provider that records none (no-op, or sampling nothing) is off.
     */
    private static boolean records(TracerProvider provider) {
        if (provider == TracerProvider.noop()) {
            return false;
        }
        return provider.get(SCOPE).spanBuilder("echomq.probe").setNoParent().startSpan().isRecording();
    }

    @Override
    public List<Enqueued> creating(String queue, int jobs, Function<String, List<Enqueued>> send) {
        if (tracer == null) {
            return send.apply("");
        }
        Span span = sendSpan(queue, jobs > 1 ? "enqueue-batch" : "enqueue", jobs);
        return inSpan(span, send, answers -> {
            if (answers.size() == 1) {
                span.setAttribute(MESSAGE_ID, answers.get(0).id());
                span.setAttribute(SUBMISSION, answers.get(0).outcome().wireName());
            }
        });
    }

    @Override
    public <T> T storing(String queue, int jobs, Function<String, T> write) {
        if (tracer == null) {
            return write.apply("");
        }
        return inSpan(sendSpan(queue, "outbox-write", jobs), write, written -> { });
    }

    @Override
    public <T> T resuming(String stored, Supplier<T> send) {
        SpanContext creation = tracer == null ? SpanContext.getInvalid() : TraceCarrier.parse(stored);
        if (!creation.isValid()) {
            return send.get();
        }
        try (Scope ignored = Context.root().with(Span.wrap(creation)).makeCurrent()) {
            return send.get();
        }
    }

    @Override
    public <T> T firing(String queue, String schedule, int slots, Function<String, T> fire) {
        if (tracer == null) {
            return fire.apply("");
        }
        Span span = sendSpan(queue, "schedule-fire", slots);
        span.setAttribute(SCHEDULE, schedule);
        return inSpan(span, fire, fired -> { });
    }

    private Span sendSpan(String queue, String operation, int jobs) {
        Span span = tracer.spanBuilder("send " + queue).setSpanKind(SpanKind.PRODUCER)
                .setAttribute(MESSAGING_SYSTEM, Conventions.SYSTEM).setAttribute(DESTINATION, queue)
                .setAttribute(OPERATION_TYPE, "send").setAttribute(OPERATION_NAME, operation).startSpan();
        if (jobs > 1) {
            span.setAttribute(BATCH_COUNT, (long) jobs);
        }
        return span;
    }

    /** Runs {@code send} with {@code span} current and its context to store; records a failure, ends the span. */
    private static <T> T inSpan(Span span, Function<String, T> send, Consumer<T> answered) {
        try (Scope ignored = span.makeCurrent()) {
            T answer = send.apply(TraceCarrier.of(span));
            answered.accept(answer);
            return answer;
        } catch (RuntimeException | Error e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR);
            span.setAttribute(ERROR_TYPE, e.getClass().getName());
            throw e;
        } finally {
            span.end();
        }
    }

    /** For the engine's start line: what is on. */
    @Override
    public String toString() {
        return "OpenTelemetry (traces " + (tracer == null ? "off" : "on") + ", metrics " + (metrics == null ? "off" : "on") + ")";
    }

    @Override
    public Deliveries deliveries(String queue, Duration lease, CreationContexts stored) {
        return new TracedDeliveries(queue, lease, tracer, metrics, stored);
    }
}
