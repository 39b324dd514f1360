package io.echomq.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.demo.LedgerChargeHandler;
import io.echomq.effect.Migrations;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.reliability.WorkerProcess;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.testkit.otel.OtlpReceiver;
import io.echomq.testkit.otel.OtlpReceiver.ReceivedPoint;
import io.echomq.testkit.otel.OtlpReceiver.ReceivedSpan;
import io.echomq.tracing.OpenTelemetryJobs;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * A standalone worker JVM with telemetry on by the standard {@code OTEL_*} settings alone: its
 * deliveries join the trace of the process that sent the job, as a worker in the WAR does, and its
 * messaging metrics count them; its exporter sends both to an OTLP receiver as it would to a
 * collector.
 */
@WithRealServices
class StandaloneWorkerTracingTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String DESTINATION = "messaging.destination.name";
    private static final String CHARGE = "{\"account\":\"acct-1\",\"amountCents\":100}";

    @Test
    void aJobSentInATraceIsProcessedByTheStandaloneWorkerInThatTraceWithItsEffectUnderTheProcessSpan(ValkeyService valkey,
            PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("standalone_traced");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        String queueName = "standalone-traced-" + ProcessHandle.current().pid();
        Path output = Files.createTempFile("standalone-worker", ".log");
        InMemorySpanExporter senderSpans = InMemorySpanExporter.create();

        try (OtlpReceiver receiver = new OtlpReceiver();
             OpenTelemetrySdk sender = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                     .addSpanProcessor(SimpleSpanProcessor.create(senderSpans)).build()).build();
             RedisClient redis = valkey.newClient();
             WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, receiver.environment(), output)) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT, ReplicaWait.NONE, OpenTelemetryJobs.of(sender));
            worker.awaitLine("event=started", DEADLINE);

            String id = queue.submissions().enqueue(queueName, NewJob.of(CHARGE)).id();
            SpanData send = senderSpans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("send " + queueName))
                    .findFirst().orElseThrow();
            String traceId = send.getSpanContext().getTraceId();
            // The effect span ends before the process span around it, so a batch can carry it alone: wait for both.
            await("the process and effect spans of job " + id + " in trace " + traceId).atMost(DEADLINE)
                    .until(() -> receiver.inTrace(traceId).stream().map(ReceivedSpan::name).toList()
                            .containsAll(List.of("process " + queueName, "effect " + queueName)));

            List<ReceivedSpan> trace = receiver.inTrace(traceId);
            ReceivedSpan process = only(trace, "process " + queueName);
            ReceivedSpan effect = only(trace, "effect " + queueName);
            assertThat(process.kind()).isEqualTo(SpanKind.SPAN_KIND_CONSUMER);
            assertThat(process.parentSpanId()).as("the process span is the send span's child").isEqualTo(send.getSpanContext().getSpanId());
            assertThat(process.attributes()).containsEntry("messaging.system", "echomq")
                    .containsEntry("messaging.destination.name", queueName).containsEntry("messaging.message.id", id)
                    .containsEntry("echomq.job.attempt", "1");
            assertThat(effect.parentSpanId()).as("the effect transaction runs under the delivery").isEqualTo(process.spanId());
            assertThat(Files.readString(output)).contains("telemetry OpenTelemetry (traces on");
        }
    }

    @Test
    void theStandaloneWorkersMessagingMetricsArriveByQueueAndOutcome(ValkeyService valkey, PostgresService postgres) throws Exception {
        PostgresService.Database database = postgres.createDatabase("standalone_metered");
        Migrations.migrate(database.dataSource());
        LedgerChargeHandler.createTables(database.dataSource());
        String queueName = "standalone-metered-" + ProcessHandle.current().pid();
        Path output = Files.createTempFile("standalone-worker", ".log");

        try (OtlpReceiver receiver = new OtlpReceiver();
             RedisClient redis = valkey.newClient();
             WorkerProcess worker = WorkerProcess.start(valkey.url(), database, queueName, receiver.environment(), output)) {
            QueueClient queue = QueueClient.connect(redis, QueueSettings.DEFAULT);
            worker.awaitLine("event=started", DEADLINE);
            queue.submissions().enqueue(queueName, NewJob.of(CHARGE));
            queue.submissions().enqueue(queueName, NewJob.of("{\"account\":\"acct-1\",\"amountCents\":-1}"));

            await("both deliveries counted").atMost(DEADLINE).until(() -> consumed(receiver, queueName, "success") >= 1
                    && consumed(receiver, queueName, "failure") >= 1);
            assertThat(receiver.points("messaging.process.duration")).filteredOn(p -> queueName.equals(p.attribute(DESTINATION)))
                    .as("process durations of %s", queueName).isNotEmpty()
                    .allSatisfy(p -> assertThat(p.unit()).isEqualTo("s"))
                    .anySatisfy(p -> assertThat(p.attributes()).containsEntry("echomq.job.outcome", "failure")
                            .containsEntry("error.type", "permanent").containsEntry("messaging.system", "echomq"));
        }
    }

    /** The greatest count of deliveries of {@code queue} with {@code outcome} exported so far (the points are cumulative). */
    private static double consumed(OtlpReceiver receiver, String queue, String outcome) {
        return receiver.points("messaging.client.consumed.messages").stream()
                .filter(p -> queue.equals(p.attribute(DESTINATION)) && outcome.equals(p.attribute("echomq.job.outcome")))
                .mapToDouble(ReceivedPoint::value).max().orElse(0);
    }

    private static ReceivedSpan only(List<ReceivedSpan> trace, String name) {
        List<ReceivedSpan> named = trace.stream().filter(s -> s.name().equals(name)).toList();
        assertThat(named).as("spans named '%s' in %s", name, trace).hasSize(1);
        return named.get(0);
    }
}
