package io.echomq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.otel.OtlpReceiver;
import io.echomq.testkit.otel.OtlpReceiver.ReceivedSpan;
import io.opentelemetry.proto.trace.v1.Span;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The adapter's telemetry on a real server: Payara Micro with the OpenTelemetry Java agent (which
 * sets up {@code GlobalOpenTelemetry} from the standard {@code OTEL_*} settings) and the adapter's
 * {@code ECHOMQ_ADAPTER_TELEMETRY=global}, exporting by OTLP to a receiver in this test. One order
 * placed with a {@code traceparent} of the test's own: its whole way is one trace, from the
 * request through the application's transaction (the connection factory's outbox {@code send}),
 * the relay's {@code send}, to the message-driven bean's {@code process} span, linked to the job's
 * creation.
 */
@WithRealServices
class OrdersTraceOnPayaraIT {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void oneTraceRunsFromTheApplicationsTransactionToTheBeansProcessSpan(ValkeyService valkey, PostgresService postgres) throws Exception {
        // Borrows the database of Payara's fourth scenario (every index has an owner), and leaves it empty again.
        OrdersOnServer.emptyValkeyDatabase(OrdersOnServer.Kind.PAYARA_MICRO, valkey, 3);
        try (OtlpReceiver receiver = new OtlpReceiver()) {
            Map<String, String> env = new LinkedHashMap<>(receiver.environment());
            env.put("ECHOMQ_ADAPTER_TELEMETRY", "global");
            env.put("OTEL_METRIC_EXPORT_INTERVAL", "600000");
            try (OrdersOnServer app = new OrdersOnServer(OrdersOnServer.Kind.PAYARA_MICRO, valkey, postgres, 3, env)
                    .withJvmOptions("-javaagent:" + OrdersOnServer.resolved("otel.javaagent")).withStartupTimeout(Duration.ofMinutes(8)).start()) {
                String traceId = random(16);
                OrdersOnServer.Answer placed = app.post("/", "{\"item\":\"traced\"}",
                        Map.of("traceparent", "00-" + traceId + "-" + random(8) + "-01"));
                assertThat(placed.status()).as("%s", placed).isEqualTo(201);

                OrdersOnServer.await("the bean's process span in trace " + traceId, Duration.ofSeconds(90),
                        () -> !named(receiver.inTrace(traceId), "process orders").isEmpty());

                List<ReceivedSpan> trace = receiver.inTrace(traceId);
                System.out.printf("trace adapter server=%s spans=%s%n", app.server.name(),
                        trace.stream().map(s -> s.name() + "/" + s.kind()).toList());
                ReceivedSpan written = only(named(trace, "send orders").stream()
                        .filter(s -> "outbox-write".equals(s.attribute("messaging.operation.name"))).toList(), "the factory's send");
                ReceivedSpan relayed = only(named(trace, "send orders").stream()
                        .filter(s -> "enqueue".equals(s.attribute("messaging.operation.name"))).toList(), "the relay's send");
                ReceivedSpan process = only(named(trace, "process orders"), "the bean's delivery");
                assertThat(relayed.parentSpanId()).as("the relay sends in the writer's trace").isEqualTo(written.spanId());
                assertThat(process.linkedSpanIds()).as("the delivery is linked to the job's creation")
                        .containsExactly(traceId + "/" + relayed.spanId());
                assertThat(process.parentSpanId()).as("and is its child").isEqualTo(relayed.spanId());
                // The trace is the one the request's traceparent named: the request's server span is in it too.
                assertThat(trace).as("the request's server span").anySatisfy(request -> {
                    assertThat(request.kind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
                    assertThat(request.name()).startsWith("POST /orders");
                });
                assertThat(process.attribute("messaging.system")).isEqualTo("echomq");
                assertThat(process.attribute("messaging.destination.name")).isEqualTo("orders");
                assertThat(process.attribute("echomq.job.outcome")).isEqualTo("success");
            }
        } finally {
            OrdersOnServer.emptyValkeyDatabase(OrdersOnServer.Kind.PAYARA_MICRO, valkey, 3);
        }
    }

    private static List<ReceivedSpan> named(List<ReceivedSpan> spans, String name) {
        return spans.stream().filter(s -> s.name().equals(name)).toList();
    }

    private static ReceivedSpan only(List<ReceivedSpan> candidates, String what) {
        assertThat(candidates).as(what).hasSize(1);
        return candidates.get(0);
    }

    private static String random(int bytes) {
        byte[] id = new byte[bytes];
        new SecureRandom().nextBytes(id);
        return HEX.formatHex(id);
    }
}
