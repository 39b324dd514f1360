package io.echomq.testkit.otel;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP receiver on a loopback port, as a collector would be: it decodes every
 * {@code ExportTraceServiceRequest} a server's exporter posts to {@code /v1/traces} and keeps its
 * spans; other signals are accepted and dropped. {@link #environment()} points a server's
 * MicroProfile Telemetry at it by the standard {@code OTEL_*} settings.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** A span as the receiver decoded it; ids in lower-case hex, the parent's empty for a root. */
    public record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name, Span.SpanKind kind,
            Map<String, String> attributes, List<String> linkedSpanIds) {

        public String attribute(String key) {
            return attributes.get(key);
        }
    }

    private static final HexFormat HEX = HexFormat.of();

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    public OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::receive);
        server.start();
    }

    /** The settings that turn a server's telemetry on and send its traces here, flushed every 200 ms. */
    public Map<String, String> environment() {
        return Map.of(
                "OTEL_SDK_DISABLED", "false",
                "OTEL_SERVICE_NAME", "echomq-test",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + server.getAddress().getPort(),
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "OTEL_TRACES_EXPORTER", "otlp",
                "OTEL_METRICS_EXPORTER", "none",
                "OTEL_LOGS_EXPORTER", "none",
                "OTEL_BSP_SCHEDULE_DELAY", "200");
    }

    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    public List<ReceivedSpan> inTrace(String traceId) {
        return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                    ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (exchange.getRequestURI().getPath().endsWith("/v1/traces")) {
                keep(ExportTraceServiceRequest.parseFrom(body));
            }
            // An empty message is a valid Export*ServiceResponse: everything accepted.
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        }
    }

    private void keep(ExportTraceServiceRequest request) {
        for (ResourceSpans resource : request.getResourceSpansList()) {
            for (ScopeSpans scope : resource.getScopeSpansList()) {
                for (Span span : scope.getSpansList()) {
                    spans.add(new ReceivedSpan(hex(span.getTraceId().toByteArray()), hex(span.getSpanId().toByteArray()),
                            hex(span.getParentSpanId().toByteArray()), span.getName(), span.getKind(),
                            span.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey, kv -> text(kv.getValue()),
                                    (a, b) -> b)),
                            span.getLinksList().stream().map(l -> hex(l.getTraceId().toByteArray()) + "/" + hex(l.getSpanId().toByteArray()))
                                    .toList()));
                }
            }
        }
    }

    private static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    private static String text(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> Long.toString(value.getIntValue());
            case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
            case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
            default -> value.toString();
        };
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
