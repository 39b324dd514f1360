package io.echomq.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.handler.BatchJobHandler;
import io.echomq.handler.JobContext;
import io.echomq.handler.JobHandler;
import io.echomq.queue.Backoff;
import io.echomq.queue.NewJob;
import io.echomq.queue.schedule.Schedule;
import io.echomq.testkit.PostgresService;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import io.echomq.worker.Engine;
import io.echomq.worker.FaultInjector;
import io.echomq.worker.WorkerSettings;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A job's trace crosses the queue: the span that submitted it, the worker's {@code process} span
 * for each delivery (linked to the creation, and its child for one job), the effect transaction
 * and the settlement under it; and the messaging metrics count what the workers did.
 */
@WithRealServices
class JobTracingTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final AttributeKey<String> SETTLEMENT = AttributeKey.stringKey("echomq.settlement");

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .build();
    private Engine engine;
    private ValkeyService valkey;
    private PostgresService postgres;

    @BeforeEach
    void services(ValkeyService valkey, PostgresService postgres) {
        this.valkey = valkey;
        this.postgres = postgres;
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (engine != null) {
            engine.close();
        }
        sdk.close();
    }

    private Engine engine(JobTelemetry telemetry) {
        engine = new Engine(valkey, postgres, telemetry);
        return engine;
    }

    private static WorkerSettings quick() {
        return WorkerSettings.DEFAULT.withConcurrency(2).withLease(Duration.ofSeconds(5)).withIdlePoll(Duration.ofMillis(20))
                .withBackoff(Backoff.NONE);
    }

    /** Submits one job inside a span of the caller's own, as an HTTP request's span would be. */
    private String submitInRequestSpan(NewJob job) {
        Span request = sdk.getTracer("test").spanBuilder("POST /jobs").setSpanKind(SpanKind.SERVER).startSpan();
        try (Scope ignored = request.makeCurrent()) {
            return engine.queue.submissions().enqueue(engine.queueName, job).id();
        } finally {
            request.end();
        }
    }

    private List<SpanData> awaitSettlements(String jobId, int count) {
        await("settle spans of job " + jobId).atMost(PATIENCE).until(() -> named("settle").stream()
                .filter(s -> jobId.equals(s.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))).count() >= count);
        return spans.getFinishedSpanItems();
    }

    private List<SpanData> named(String operation) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(operation + " " + engine.queueName)).toList();
    }

    private static SpanData only(List<SpanData> candidates, String what) {
        assertThat(candidates).as(what).hasSize(1);
        return candidates.get(0);
    }

    @Test
    void oneTraceRunsFromTheRequestThatSubmittedAJobThroughItsProcessingToItsEffectAndSettlement() {
        engine(OpenTelemetryJobs.of(sdk));
        engine.startWorker("w", job -> {
            // The handler's own span: the application's spans and the engine's share one trace.
            sdk.getTracer("app").spanBuilder("charge the card").startSpan().end();
        }, quick(), FaultInjector.NONE);

        String id = submitInRequestSpan(NewJob.of("{}").inLane("tenant-a"));
        awaitSettlements(id, 1);

        SpanData request = only(spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("POST /jobs")).toList(), "request");
        SpanData send = only(named("send"), "send span");
        SpanData process = only(named("process"), "process span");
        SpanData effect = only(named("effect"), "effect span");
        SpanData settle = only(named("settle"), "settle span");
        SpanData handler = only(spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("charge the card")).toList(),
                "handler span");

        assertThat(List.of(send, process, effect, settle, handler)).extracting(SpanData::getTraceId)
                .as("one trace from the request to the settlement").containsOnly(request.getTraceId());
        assertThat(send.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(process.getParentSpanId()).as("the delivery is the creation's child").isEqualTo(send.getSpanId());
        assertThat(links(process)).containsExactly(spanId(send));
        assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(effect.getParentSpanId()).isEqualTo(process.getSpanId());
        assertThat(handler.getParentSpanId()).as("the handler runs in the effect transaction").isEqualTo(effect.getSpanId());
        assertThat(settle.getParentSpanId()).isEqualTo(process.getSpanId());
        assertThat(settle.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(settle.getAttributes().get(SETTLEMENT)).isEqualTo("completed");

        assertThat(process.getAttributes().asMap()).containsEntry(AttributeKey.stringKey("messaging.system"), "echomq")
                .containsEntry(AttributeKey.stringKey("messaging.destination.name"), engine.queueName)
                .containsEntry(AttributeKey.stringKey("messaging.operation.type"), "process")
                .containsEntry(AttributeKey.stringKey("messaging.message.id"), id)
                .containsEntry(AttributeKey.longKey("echomq.job.attempt"), 1L)
                .containsEntry(AttributeKey.stringKey("echomq.job.lane"), "tenant-a")
                .containsEntry(AttributeKey.stringKey("echomq.job.outcome"), "success")
                .doesNotContainKey(AttributeKey.stringKey("error.type"));
        assertThat(send.getAttributes().asMap()).containsEntry(AttributeKey.stringKey("messaging.message.id"), id)
                .containsEntry(AttributeKey.stringKey("echomq.submission.outcome"), "created");
    }

    @Test
    void aRedeliveredJobsTwoProcessSpansLinkToTheSameCreation() {
        engine(OpenTelemetryJobs.of(sdk));
        AtomicInteger deliveries = new AtomicInteger();
        engine.startWorker("w", job -> {
            if (deliveries.incrementAndGet() == 1) {
                throw new IllegalStateException("the card network timed out");
            }
        }, quick(), FaultInjector.NONE);

        String id = submitInRequestSpan(NewJob.of("{}").withMaxAttempts(3));
        awaitSettlements(id, 2);

        SpanData send = only(named("send"), "send span");
        List<SpanData> processes = named("process");
        assertThat(processes).hasSize(2);
        assertThat(processes).allSatisfy(p -> assertThat(links(p)).containsExactly(spanId(send)));
        assertThat(processes).extracting(p -> p.getAttributes().get(AttributeKey.longKey("echomq.job.attempt")))
                .containsExactlyInAnyOrder(1L, 2L);
        SpanData failed = processes.stream().filter(p -> p.getAttributes().get(AttributeKey.longKey("echomq.job.attempt")) == 1L)
                .findFirst().orElseThrow();
        assertThat(failed.getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo("retryable");
        assertThat(failed.getAttributes().get(AttributeKey.stringKey("echomq.job.outcome"))).isEqualTo("failure");
        assertThat(named("effect").stream().filter(e -> e.getParentSpanId().equals(failed.getSpanId())).findFirst().orElseThrow()
                .getAttributes().get(AttributeKey.stringKey("error.type"))).as("the failed transaction's span says why")
                .isNotNull();
        assertThat(named("settle")).extracting(s -> s.getAttributes().get(SETTLEMENT)).containsExactlyInAnyOrder("retried", "completed");
    }

    @Test
    void aBatchDeliveryLinksToEveryJobsCreation() {
        engine(OpenTelemetryJobs.of(sdk));
        BatchJobHandler batch = new BatchJobHandler() {
            @Override
            public void handle(JobContext job) {
            }

            @Override
            public void handleBatch(List<JobContext> jobs) {
            }
        };
        String first = submitInRequestSpan(NewJob.of("{}"));
        String second = submitInRequestSpan(NewJob.of("{}"));
        engine.startWorker("w", batch, quick().withConcurrency(1).withBatchSize(10), FaultInjector.NONE);
        awaitSettlements(first, 1);
        awaitSettlements(second, 1);

        SpanData process = only(named("process"), "one delivery for the batch");
        assertThat(links(process)).containsExactlyInAnyOrderElementsOf(named("send").stream().map(JobTracingTest::spanId).toList());
        assertThat(process.getAttributes().get(AttributeKey.longKey("messaging.batch.message_count"))).isEqualTo(2L);
        assertThat(named("settle")).allSatisfy(s -> assertThat(s.getParentSpanId()).isEqualTo(process.getSpanId()));
    }

    @Test
    void aScheduledJobsDeliveryLinksToTheFiringThatMadeIt() {
        engine(OpenTelemetryJobs.of(sdk));
        engine.queue.schedules().put(Schedule.every(engine.queueName, "report", Duration.ofMillis(50), "{}"), "api");
        engine.startWorker("w", job -> { }, quick(), FaultInjector.NONE);

        await("a firing").atMost(PATIENCE).until(() -> {
            engine.queue.schedules().tick(engine.queueName);
            return !named("send").isEmpty();
        });
        SpanData firing = named("send").get(0);
        assertThat(firing.getAttributes().get(AttributeKey.stringKey("echomq.schedule.name"))).isEqualTo("report");
        assertThat(firing.getAttributes().get(AttributeKey.stringKey("messaging.operation.name"))).isEqualTo("schedule-fire");
        await("the fired job's delivery").atMost(PATIENCE).until(() -> named("process").stream()
                .anyMatch(p -> links(p).contains(spanId(firing))));
        SpanData process = named("process").stream().filter(p -> links(p).contains(spanId(firing))).findFirst().orElseThrow();
        assertThat(process.getParentSpanId()).isEqualTo(firing.getSpanId());
    }

    @Test
    void theMessagingMetricsCountDeliveriesByQueueAndOutcome() {
        engine(OpenTelemetryJobs.of(sdk));
        AtomicInteger deliveries = new AtomicInteger();
        engine.startWorker("w", job -> {
            if (deliveries.incrementAndGet() == 1) {
                throw new IllegalStateException("first delivery fails");
            }
        }, quick(), FaultInjector.NONE);
        String id = submitInRequestSpan(NewJob.of("{}").withMaxAttempts(3));
        awaitSettlements(id, 2);

        List<MetricData> collected = List.copyOf(metrics.collectAllMetrics());
        MetricData consumed = metric(collected, "messaging.client.consumed.messages");
        assertThat(consumed.getLongSumData().getPoints()).extracting(p -> p.getAttributes().get(AttributeKey.stringKey("echomq.job.outcome")),
                LongPointData::getValue).containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("success", 1L),
                        org.assertj.core.groups.Tuple.tuple("failure", 1L));
        assertThat(consumed.getLongSumData().getPoints()).allSatisfy(p -> assertThat(
                p.getAttributes().get(AttributeKey.stringKey("messaging.destination.name"))).isEqualTo(engine.queueName));
        MetricData duration = metric(collected, "messaging.process.duration");
        assertThat(duration.getUnit()).isEqualTo("s");
        assertThat(duration.getHistogramData().getPoints()).extracting(HistogramPointData::getCount).containsOnly(1L);
        MetricData queued = metric(collected, "echomq.job.queued.duration");
        assertThat(queued.getHistogramData().getPoints()).singleElement().satisfies(p -> {
            assertThat(p.getCount()).as("one per delivery").isEqualTo(2L);
            assertThat(p.getMin()).as("measured on the server clock: never negative").isGreaterThanOrEqualTo(0.0);
        });
    }

    @Test
    void withTelemetryOffNothingIsStoredWithTheJob() {
        assertThat(OpenTelemetryJobs.of(OpenTelemetry.noop())).as("the API's no-op is off").isSameAs(JobTelemetry.OFF);
        engine(OpenTelemetryJobs.of(OpenTelemetry.noop()));
        String id = submitInRequestSpan(NewJob.of("{}"));
        List<String> batch = engine.queue.submissions().enqueueBatch(engine.queueName, List.of(NewJob.of("{}"), NewJob.of("{}")))
                .stream().map(e -> e.id()).toList();

        assertThat(engine.queue.reads().creationContexts(engine.queueName, List.of(id, batch.get(0), batch.get(1))))
                .containsOnlyNulls();
    }

    @Test
    void aTracedSubmissionStoresItsCreationContextWithEachJob() {
        engine(OpenTelemetryJobs.of(sdk));
        String id = submitInRequestSpan(NewJob.of("{}"));
        List<String> batch = engine.queue.submissions().enqueueBatch(engine.queueName, List.of(NewJob.of("{}"), NewJob.of("{}")))
                .stream().map(e -> e.id()).toList();

        List<SpanData> sends = named("send");
        List<String> stored = engine.queue.reads().creationContexts(engine.queueName, List.of(id, batch.get(0), batch.get(1)));
        assertThat(stored.get(0)).startsWith("00-" + sends.get(0).getTraceId() + "-" + sends.get(0).getSpanId() + "-");
        assertThat(stored.get(1)).as("a batch's jobs share its send span").isEqualTo(stored.get(2))
                .startsWith("00-" + sends.get(1).getTraceId() + "-" + sends.get(1).getSpanId() + "-");
        assertThat(sends.get(1).getAttributes().get(AttributeKey.longKey("messaging.batch.message_count"))).isEqualTo(2L);
    }

    /** A span as a link names it: trace and span id (a link's context is remote, the span's own is not). */
    private static String spanId(SpanData span) {
        return span.getTraceId() + "/" + span.getSpanId();
    }

    private static List<String> links(SpanData span) {
        return span.getLinks().stream().map(LinkData::getSpanContext).map(c -> c.getTraceId() + "/" + c.getSpanId()).toList();
    }

    private static MetricData metric(List<MetricData> collected, String name) {
        return collected.stream().filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + name + " in " + collected.stream().map(MetricData::getName).toList()));
    }
}
