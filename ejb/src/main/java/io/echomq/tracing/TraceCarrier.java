package io.echomq.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.Map;

/**
 * The creation context as a job carries it: the W3C {@code traceparent}, then a newline and the
 * {@code tracestate} when there is one (neither header can hold a newline). W3C whatever
 * propagators the server is configured with, so a job written by one server is read by any other.
 */
final class TraceCarrier {

    private static final String TRACEPARENT = "traceparent";
    private static final String TRACESTATE = "tracestate";
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

    private static final TextMapGetter<Map<String, String>> FROM_MAP = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private TraceCarrier() {
    }

    /** The stored form of {@code span}'s context, or {@code ""} when it has none to store (not sampled in, or a no-op span). */
    static String of(Span span) {
        if (!span.getSpanContext().isValid()) {
            return "";
        }
        Map<String, String> headers = new HashMap<>(2);
        W3C.inject(Context.root().with(span), headers, Map::put);
        String parent = headers.getOrDefault(TRACEPARENT, "");
        String state = headers.get(TRACESTATE);
        return parent.isEmpty() || state == null || state.isEmpty() ? parent : parent + '\n' + state;
    }

    /** The span context a job's stored value names; invalid for null, empty or malformed values. */
    static SpanContext parse(String stored) {
        if (stored == null || stored.isEmpty()) {
            return SpanContext.getInvalid();
        }
        int newline = stored.indexOf('\n');
        Map<String, String> headers = new HashMap<>(2);
        headers.put(TRACEPARENT, newline < 0 ? stored : stored.substring(0, newline));
        if (newline >= 0) {
            headers.put(TRACESTATE, stored.substring(newline + 1));
        }
        return Span.fromContext(W3C.extract(Context.root(), headers, FROM_MAP)).getSpanContext();
    }
}
