package io.echomq.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.otel.OtlpReceiver;
import io.echomq.testkit.otel.OtlpReceiver.ReceivedPoint;
import io.echomq.testkit.otel.OtlpReceiver.ReceivedSpan;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.RedisClient;

/**
 * What a deployment with telemetry on exports, as its OTLP exporter sent it to an
 * {@link OtlpReceiver}: one trace from an HTTP POST through the worker's {@code process} span to
 * the effect, a job delivered twice with both {@code process} spans linked to its one creation,
 * and the messaging metrics of those deliveries by queue and outcome.
 */
final class TraceChecks {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final SecureRandom RANDOM = new SecureRandom();

    private TraceChecks() {
    }

    /**
     * A job submitted over HTTP in a trace the caller started (its {@code traceparent} header): the
     * server's span for the request, the {@code send} span under it, the worker's {@code process}
     * span the send's child, and the effect transaction's and the settlement's spans the process's
     * children, all one trace. Returns once the queue took the job's acknowledgement (the settle
     * span ended), so that a later count of completed jobs does not see it arrive.
     */
    static void oneTraceFromThePostToTheEffect(E2eDeployment app, OtlpReceiver receiver) {
        String traceId = HexFormat.of().formatHex(bytes(16));
        String callerSpan = HexFormat.of().formatHex(bytes(8));
        String id = submit(app, "{\"payload\":{\"account\":\"traced\",\"amountCents\":100}}",
                Map.of("traceparent", "00-" + traceId + "-" + callerSpan + "-01"));
        String queue = E2eDeployment.DEMO_QUEUE;

        await("the settlement of job " + id + " in trace " + traceId).atMost(PATIENCE)
                .until(() -> receiver.inTrace(traceId).stream().anyMatch(s -> s.name().equals("settle " + queue)));
        List<ReceivedSpan> trace = receiver.inTrace(traceId);
        ReceivedSpan server = trace.stream().filter(s -> s.kind() == SpanKind.SPAN_KIND_SERVER && s.parentSpanId().equals(callerSpan))
                .findFirst().orElseThrow(() -> new AssertionError("no server span for the POST under the caller's span in " + names(trace)));
        ReceivedSpan send = only(trace, "send " + queue);
        ReceivedSpan process = only(trace, "process " + queue);
        ReceivedSpan effect = only(trace, "effect " + queue);

        assertThat(send.kind()).isEqualTo(SpanKind.SPAN_KIND_PRODUCER);
        assertThat(send.parentSpanId()).as("the send span is under the server's span of the request").isEqualTo(server.spanId());
        assertThat(send.attribute("messaging.message.id")).isEqualTo(id);
        assertThat(process.kind()).isEqualTo(SpanKind.SPAN_KIND_CONSUMER);
        assertThat(process.parentSpanId()).isEqualTo(send.spanId());
        assertThat(process.linkedSpanIds()).containsExactly(traceId + "/" + send.spanId());
        assertThat(process.attributes()).containsEntry("messaging.system", "echomq").containsEntry("messaging.destination.name", queue)
                .containsEntry("messaging.message.id", id).containsEntry("echomq.job.attempt", "1")
                .containsEntry("echomq.job.outcome", "success");
        assertThat(effect.parentSpanId()).isEqualTo(process.spanId());
        ReceivedSpan settle = only(trace, "settle " + queue);
        assertThat(settle.parentSpanId()).isEqualTo(process.spanId());
        assertThat(settle.attribute("echomq.settlement")).isEqualTo("completed");
    }

    /**
     * A job whose payload the demo handler refuses goes dead; an operator's retry delivers it
     * again. Both deliveries' {@code process} spans link to the one {@code send} span that made it.
     */
    static void aRedeliveredJobsProcessSpansLinkToItsOneCreation(E2eDeployment app, OtlpReceiver receiver) {
        String queue = E2eDeployment.DEMO_QUEUE;
        String id = submit(app, "{\"payload\":{\"account\":\"traced\",\"amountCents\":-1}}", Map.of());
        await("job " + id + " dead after its first delivery").atMost(PATIENCE).until(() -> processSpans(receiver, id).size() == 1);
        E2eHttp.Response retried = app.admin.post("/api/queues/" + queue + "/jobs/" + id + "/retry", "");
        assertThat(retried.status()).as("the operator's retry: %s", retried).isEqualTo(200);
        await("job " + id + " delivered again").atMost(PATIENCE).until(() -> processSpans(receiver, id).size() == 2);

        List<ReceivedSpan> processes = processSpans(receiver, id);
        ReceivedSpan send = receiver.spans().stream()
                .filter(s -> s.name().equals("send " + queue) && id.equals(s.attribute("messaging.message.id"))).findFirst()
                .orElseThrow(() -> new AssertionError("no send span for job " + id));
        assertThat(processes).extracting(ReceivedSpan::linkedSpanIds).as("both deliveries link to the one creation")
                .containsOnly(List.of(send.traceId() + "/" + send.spanId()));
        assertThat(processes).extracting(s -> s.attribute("echomq.job.attempt")).containsExactlyInAnyOrder("1", "2");
        assertThat(processes).extracting(s -> s.attribute("error.type")).containsOnly("permanent");
    }

    /**
     * The messaging metrics of the deliveries the two trace checks made (one success, then two
     * deliveries refused for good), as the server's MicroProfile Telemetry exported them:
     * {@code messaging.client.consumed.messages} and {@code messaging.process.duration} (seconds)
     * of the demo queue, one series per outcome, the failures' with their {@code error.type}.
     * Call right after those checks; exported points are cumulative, so later jobs only add.
     */
    static void messagingMetricsArriveByQueueAndOutcome(OtlpReceiver receiver) {
        await("deliveries of " + E2eDeployment.DEMO_QUEUE + " counted by outcome").atMost(PATIENCE)
                .until(() -> consumed(receiver, "success") >= 1 && consumed(receiver, "failure") >= 2);
        for (String metric : List.of("messaging.client.consumed.messages", "messaging.process.duration")) {
            assertThat(receiver.points(metric)).as("points of %s", metric)
                    .filteredOn(p -> E2eDeployment.DEMO_QUEUE.equals(p.attribute("messaging.destination.name")))
                    .anySatisfy(p -> assertThat(p.attributes()).containsEntry("messaging.system", "echomq")
                            .containsEntry("echomq.job.outcome", "success").doesNotContainKey("error.type"))
                    .anySatisfy(p -> assertThat(p.attributes()).containsEntry("echomq.job.outcome", "failure")
                            .containsEntry("error.type", "permanent"));
        }
        assertThat(receiver.points("messaging.process.duration")).extracting(ReceivedPoint::unit).containsOnly("s");
        assertThat(receiver.points("messaging.process.duration")).as("a histogram: measurements counted")
                .anySatisfy(p -> assertThat(p.count()).isPositive());
    }

    /** The greatest count of the demo queue's deliveries with {@code outcome} exported so far. */
    private static double consumed(OtlpReceiver receiver, String outcome) {
        return receiver.points("messaging.client.consumed.messages").stream()
                .filter(p -> E2eDeployment.DEMO_QUEUE.equals(p.attribute("messaging.destination.name"))
                        && outcome.equals(p.attribute("echomq.job.outcome")))
                .mapToDouble(ReceivedPoint::value).max().orElse(0);
    }

    /**
     * With telemetry off, a job carries no trace context: the engine stored nothing for it (and a
     * worker reads nothing). Some servers hand out a recording OpenTelemetry even while
     * {@code OTEL_SDK_DISABLED} is true; the engine must not take that for on. Returns once the
     * job completed, so that a later count of the ledger does not see it arrive. (PortabilityIT no
     * longer calls it: every deployment there runs with telemetry on. A deployment with telemetry
     * off, as the other end-to-end tests' are, can.)
     */
    static void aJobCarriesNoTraceWhenTelemetryIsOff(E2eDeployment app) {
        String id = submit(app, "{\"payload\":{\"account\":\"untraced\",\"amountCents\":100}}", Map.of());
        await("job " + id + " completed").atMost(PATIENCE).until(() -> "completed".equals(
                ApiE2eIT.json(app.submitter.get("/api/queues/" + E2eDeployment.DEMO_QUEUE + "/jobs/" + id)).getString("state")));
        try (RedisClient valkey = app.valkeyClient()) {
            Map<String, String> job = valkey.hgetAll(new QueueKeys(E2eDeployment.DEMO_QUEUE).job(id));
            assertThat(job).as("job %s as Valkey holds it", id).containsKey("payload").doesNotContainKey("trace");
        }
    }

    private static byte[] bytes(int count) {
        byte[] bytes = new byte[count];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static List<ReceivedSpan> processSpans(OtlpReceiver receiver, String jobId) {
        return receiver.spans().stream()
                .filter(s -> s.name().equals("process " + E2eDeployment.DEMO_QUEUE) && jobId.equals(s.attribute("messaging.message.id")))
                .toList();
    }

    private static String submit(E2eDeployment app, String body, Map<String, String> headers) {
        E2eHttp.Response created = app.submitter.post("/api/queues/" + E2eDeployment.DEMO_QUEUE + "/jobs", body, headers);
        assertThat(created.status()).as("submission: %s", created).isEqualTo(201);
        return ApiE2eIT.json(created).getString("id");
    }

    private static ReceivedSpan only(List<ReceivedSpan> trace, String name) {
        List<ReceivedSpan> named = trace.stream().filter(s -> s.name().equals(name)).toList();
        assertThat(named).as("spans named '%s' in %s", name, names(trace)).hasSize(1);
        return named.get(0);
    }

    private static List<String> names(List<ReceivedSpan> trace) {
        return trace.stream().map(s -> s.name() + "(" + s.kind() + ")").toList();
    }
}
