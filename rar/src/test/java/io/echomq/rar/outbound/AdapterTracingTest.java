package io.echomq.rar.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.api.JobRequest;
import io.echomq.effect.EffectSettings;
import io.echomq.effect.EffectStore;
import io.echomq.effect.Migrations;
import io.echomq.engine.EngineAssembly;
import io.echomq.engine.EngineThreads;
import io.echomq.maintenance.MaintenanceListener;
import io.echomq.outbox.Outbox;
import io.echomq.outbox.OutboxRelay;
import io.echomq.queue.Backoff;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ReplicaWait;
import io.echomq.queue.shard.QueueShards;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.tracing.OpenTelemetryJobs;
import io.echomq.worker.WorkerListener;
import io.echomq.worker.WorkerSettings;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * With the adapter's telemetry on, one trace runs from the application's transaction to the
 * bean's delivery: the connection factory's {@code send} span where it writes the job to the
 * outbox (its context stored on the row, V11), the relay's {@code send} under it, the job's
 * stored creation context, and the {@code process} span of the worker the adapter's activation
 * assembles (the bean's call inside it), linked to that creation. The transaction is a stand-in
 * ({@link EnlistingTransaction}); Valkey, PostgreSQL, the relay and the worker are real.
 */
@WithRealServices
class AdapterTracingTest {

    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.name");

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build();
    private RedisClient redis;
    private QueueClient queue;
    private String queueName;
    private DataSource database;
    private EngineAssembly assembly;

    @BeforeEach
    void start(ValkeyService valkey, PostgresService postgres) {
        redis = valkey.newClient();
        queue = QueueClient.connect(redis, QueueSettings.DEFAULT, ReplicaWait.NONE, OpenTelemetryJobs.of(sdk));
        queueName = "traced-" + UUID.randomUUID().toString().substring(0, 8);
        database = postgres.createDatabase("traced").dataSource();
        Migrations.migrate(database);
    }

    @AfterEach
    void stop() {
        if (assembly != null) {
            assembly.stop(Duration.ofSeconds(5));
        }
        redis.close();
        sdk.close();
    }

    @Test
    void oneTraceRunsFromTheApplicationsTransactionThroughTheOutboxToTheBeansProcessSpan() throws Exception {
        EnlistingTransaction transaction = new EnlistingTransaction(database);
        OutboxRelay writers = OutboxRelay.idle("test/" + queueName, transaction.dataSource(), queue.submissions().outboxDoor(), queue.outboxAdmin(),
                Duration.ofMinutes(1));
        Span request = sdk.getTracer("app").spanBuilder("POST /orders").setSpanKind(SpanKind.SERVER).startSpan();
        try (Scope ignored = request.makeCurrent()) {
            new OutboundEnqueuer(QueueShards.none(queue), transaction, () -> writers).enqueue(JobRequest.of(queueName, "{\"order\":1}"));
            transaction.commit();
        } finally {
            request.end();
        }
        OutboxRelay.idle("test/" + queueName, database, queue.submissions().outboxDoor(), queue.outboxAdmin(), Duration.ofMinutes(1)).sweep();

        assembly = new EngineAssembly(queue, new EffectStore(Jdbi.create(database), EffectSettings.DEFAULT), Outbox.NONE,
                EngineThreads.from(Executors.defaultThreadFactory()), "adapter-test", WorkerListener.NONE, MaintenanceListener.NONE);
        assembly.startWorker(queueName, job -> sdk.getTracer("app").spanBuilder("fulfil the order").startSpan().end(),
                WorkerSettings.DEFAULT.withConcurrency(1).withIdlePoll(Duration.ofMillis(20)).withBackoff(Backoff.NONE));
        await().atMost(Duration.ofSeconds(30)).until(() -> named("process " + queueName).size() == 1);

        String trace = request.getSpanContext().getTraceId();
        SpanData written = only(named("send " + queueName).stream().filter(s -> "outbox-write".equals(s.getAttributes().get(OPERATION))).toList());
        SpanData relayed = only(named("send " + queueName).stream().filter(s -> "enqueue".equals(s.getAttributes().get(OPERATION))).toList());
        SpanData process = only(named("process " + queueName));
        SpanData bean = only(named("fulfil the order"));
        assertThat(written.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(written.getParentSpanId()).as("the factory's send is the application's child").isEqualTo(request.getSpanContext().getSpanId());
        assertThat(relayed.getParentSpanId()).as("the relay sends in the writer's trace").isEqualTo(written.getSpanId());
        assertThat(List.of(written, relayed, process, bean)).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(trace));
        assertThat(process.getLinks()).singleElement().satisfies(link -> assertThat(link.getSpanContext().getSpanId())
                .as("the delivery is linked to the job's creation").isEqualTo(relayed.getSpanId()));
        assertThat(queue.reads().creationContexts(queueName, List.of(relayed.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))))
                .singleElement().asString().contains(trace);
    }

    private List<SpanData> named(String name) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    }

    private static SpanData only(List<SpanData> candidates) {
        assertThat(candidates).hasSize(1);
        return candidates.get(0);
    }
}
