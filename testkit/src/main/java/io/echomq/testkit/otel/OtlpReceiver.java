package io.echomq.testkit.otel;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
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
 * spans, and every {@code ExportMetricsServiceRequest} posted to {@code /v1/metrics} and keeps
 * its data points; logs are accepted and dropped. {@link #environment()} points a server's
 * MicroProfile Telemetry (or an SDK's autoconfiguration) at it by the standard {@code OTEL_*}
 * settings.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** A span as the receiver decoded it; ids in lower-case hex, the parent's empty for a root. */
    public record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name, Span.SpanKind kind,
            Map<String, String> attributes, List<String> linkedSpanIds) {

        public String attribute(String key) {
            return attributes.get(key);
        }
    }

    /**
     * A data point of a metric as the receiver decoded it, with its metric's name and unit. A
     * counter's or gauge's point has its {@code value} and a {@code count} of 0; a histogram's
     * point has the number of measurements in {@code count} and their sum in {@code value}.
     * Exporters send cumulative points again at every interval: a metric shows up many times.
     */
    public record ReceivedPoint(String metric, String unit, Map<String, String> attributes, double value, long count) {

        public String attribute(String key) {
            return attributes.get(key);
        }
    }

    private static final HexFormat HEX = HexFormat.of();

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();
    private final List<ReceivedPoint> points = new CopyOnWriteArrayList<>();

    public OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::receive);
        server.start();
    }

    /**
     * The settings that turn a server's telemetry on and send its traces (flushed every 200 ms) and
     * its metrics (every second) here.
     */
    public Map<String, String> environment() {
        return Map.of(
                "OTEL_SDK_DISABLED", "false",
                "OTEL_SERVICE_NAME", "echomq-test",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + server.getAddress().getPort(),
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "OTEL_TRACES_EXPORTER", "otlp",
                "OTEL_METRICS_EXPORTER", "otlp",
                "OTEL_METRIC_EXPORT_INTERVAL", "1000",
                "OTEL_LOGS_EXPORTER", "none",
                "OTEL_BSP_SCHEDULE_DELAY", "200");
    }

    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    public List<ReceivedSpan> inTrace(String traceId) {
        return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    /** Every data point received so far, of every metric, in the order they arrived. */
    public List<ReceivedPoint> points() {
        return List.copyOf(points);
    }

    /** The data points received so far of the metric named {@code metric}. */
    public List<ReceivedPoint> points(String metric) {
        return points.stream().filter(p -> p.metric().equals(metric)).toList();
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
            } else if (exchange.getRequestURI().getPath().endsWith("/v1/metrics")) {
                keep(ExportMetricsServiceRequest.parseFrom(body));
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
                            attributes(span.getAttributesList()),
                            span.getLinksList().stream().map(l -> hex(l.getTraceId().toByteArray()) + "/" + hex(l.getSpanId().toByteArray()))
                                    .toList()));
                }
            }
        }
    }

    private void keep(ExportMetricsServiceRequest request) {
        for (ResourceMetrics resource : request.getResourceMetricsList()) {
            for (ScopeMetrics scope : resource.getScopeMetricsList()) {
                for (Metric metric : scope.getMetricsList()) {
                    keep(metric);
                }
            }
        }
    }

    /** Keeps the points of the metric kinds the OpenTelemetry API's instruments make; exponential histograms and summaries are dropped. */
    private void keep(Metric metric) {
        switch (metric.getDataCase()) {
            case SUM -> metric.getSum().getDataPointsList().forEach(p -> points.add(number(metric, p)));
            case GAUGE -> metric.getGauge().getDataPointsList().forEach(p -> points.add(number(metric, p)));
            case HISTOGRAM -> {
                for (HistogramDataPoint p : metric.getHistogram().getDataPointsList()) {
                    points.add(new ReceivedPoint(metric.getName(), metric.getUnit(), attributes(p.getAttributesList()), p.getSum(),
                            p.getCount()));
                }
            }
            default -> { }
        }
    }

    private static ReceivedPoint number(Metric metric, NumberDataPoint point) {
        double value = point.getValueCase() == NumberDataPoint.ValueCase.AS_INT ? point.getAsInt() : point.getAsDouble();
        return new ReceivedPoint(metric.getName(), metric.getUnit(), attributes(point.getAttributesList()), value, 0);
    }

    private static Map<String, String> attributes(List<KeyValue> attributes) {
        return attributes.stream().collect(Collectors.toMap(KeyValue::getKey, kv -> text(kv.getValue()), (a, b) -> b));
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
