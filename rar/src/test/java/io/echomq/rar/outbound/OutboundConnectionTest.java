package io.echomq.rar.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.api.JobQueueConnection;
import io.echomq.api.JobQueueConnectionFactory;
import io.echomq.api.JobRequest;
import io.echomq.api.Submission;
import io.echomq.outbox.OutboxRelay;
import io.echomq.outbox.OutboxWriter;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.shard.QueueShards;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import jakarta.resource.NotSupportedException;
import jakarta.resource.spi.ConnectionEvent;
import jakarta.resource.spi.ConnectionEventListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The connection factory and its connections outside a container (the Connectors spec's
 * non-managed environment): no JTA transaction, so every enqueue goes to Valkey directly. The
 * outbox path needs a container's transaction manager and is not faked here; what precedes it,
 * the checks, is the same code.
 */
@WithRealServices
class OutboundConnectionTest {

    private static RedisClient redis;
    private static QueueClient queue;

    private String queueName;
    private JobQueueManagedConnectionFactory managedFactory;
    private JobQueueConnectionFactory factory;

    @BeforeAll
    static void connect(ValkeyService valkey) {
        redis = valkey.newClient();
        // Small limits, to test the checks cheaply.
        queue = QueueClient.connect(redis, QueueSettings.DEFAULT.withMaxPayloadBytes(64));
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }

    @BeforeEach
    void directFactory() {
        queueName = "outbound-" + UUID.randomUUID().toString().substring(0, 8);
        managedFactory = new JobQueueManagedConnectionFactory();
        Supplier<OutboxRelay> noOutbox = () -> {
            throw new AssertionError("no transaction here: the outbox must not be used");
        };
        managedFactory.useEnqueuer(new OutboundEnqueuer(QueueShards.none(queue), null, noOutbox));
        factory = (JobQueueConnectionFactory) managedFactory.createConnectionFactory();
    }

    private boolean nothingWritten() {
        return !redis.exists("echomq:{" + queueName + "}:seq");
    }

    @Test
    void outsideATransactionAJobIsEnqueuedAtOnce() {
        try (JobQueueConnection connection = factory.getConnection()) {
            Submission first = connection.enqueue(JobRequest.of(queueName, "{}").withIdempotencyKey("k1"));
            Submission again = connection.enqueue(JobRequest.of(queueName, "{}").withIdempotencyKey("k1"));
            List<Submission> batch = connection.enqueueBatch(List.of(JobRequest.of(queueName, "{\"a\":1}"),
                    JobRequest.of(queueName, "{\"b\":2}").withDelayMs(10_000)));

            assertThat(first.afterCommit()).isFalse();
            assertThat(first.outboxId()).isNull();
            assertThat(first.jobId()).isNotNull();
            assertThat(again.duplicate()).isTrue();
            assertThat(again.jobId()).isEqualTo(first.jobId());
            assertThat(batch).hasSize(2).allSatisfy(s -> assertThat(s.jobId()).isNotNull());
        }
        assertThat(queue.reads().stats(queueName).pending()).isEqualTo(2);
        assertThat(queue.reads().stats(queueName).delayed()).isEqualTo(1);
    }

    @Test
    void badRequestsAreRefusedNamingTheFieldAndWriteNothing() {
        try (JobQueueConnection connection = factory.getConnection()) {
            assertRefused(() -> connection.enqueue(JobRequest.of("no spaces", "{}")), "queue");
            assertRefused(() -> connection.enqueue(JobRequest.of(queueName, "{}").withLane("{tag}")), "lane");
            assertRefused(() -> connection.enqueue(JobRequest.of(queueName, "x".repeat(65))), "payload");
            assertRefused(() -> connection.enqueue(JobRequest.of(queueName, "{}").withIdempotencyKey("")), "idempotencyKey");
            assertRefused(() -> connection.enqueue(JobRequest.of(queueName, "{}").withIdempotencyKey("a\nb")), "idempotencyKey");
            assertRefused(() -> connection.enqueue(JobRequest.of(queueName, "{}").withMaxAttempts(1_000_001)), "maxAttempts");
            assertRefused(() -> connection.enqueue(JobRequest.of(queueName, "{}").withDelayMs(Duration.ofDays(400).toMillis())),
                    "delayMs");
            // A batch is checked whole before anything is sent: the good first job is not enqueued either.
            assertRefused(() -> connection.enqueueBatch(List.of(JobRequest.of(queueName, "{}"),
                    JobRequest.of(queueName, "{}").withLane("a:b"))), "requests[1].lane");
            assertRefused(() -> connection.enqueueBatch(List.of()), "requests");
            assertRefused(() -> connection.enqueueBatch(List.of(JobRequest.of(queueName, "{}"),
                    JobRequest.of(queueName + "-other", "{}"))), "requests[1].queue");
        }
        assertThat(nothingWritten()).isTrue();
    }

    @Test
    void aPayloadPostgresCannotStoreIsRefusedBeforeTheOutboxIsWritten() {
        assertRefused(() -> OutboxWriter.checkStorable(List.of(JobRequest.of(queueName, "a\u0000b")), false), "payload");
        assertRefused(() -> OutboxWriter.checkStorable(List.of(JobRequest.of(queueName, "{}"), JobRequest.of(queueName, "\u0000")), true),
                "requests[1].payload");
    }

    private static void assertRefused(Runnable call, String field) {
        assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(field + ": ");
    }

    @Test
    void closingAHandleTellsTheContainerAndEndsTheHandle() throws Exception {
        JobQueueManagedConnection managed = (JobQueueManagedConnection) managedFactory.createManagedConnection(null, null);
        List<ConnectionEvent> events = new ArrayList<>();
        managed.addConnectionEventListener(recording(events));
        JobQueueConnection handle = (JobQueueConnection) managed.getConnection(null, null);

        handle.close();
        handle.close(); // a second close is no second event

        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.getId()).isEqualTo(ConnectionEvent.CONNECTION_CLOSED);
            assertThat(e.getConnectionHandle()).isSameAs(handle);
        });
        assertThatThrownBy(() -> handle.enqueue(queueName, "{}")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theContainerCanMoveAHandleAndCleanUp() throws Exception {
        JobQueueManagedConnection first = (JobQueueManagedConnection) managedFactory.createManagedConnection(null, null);
        JobQueueManagedConnection second = (JobQueueManagedConnection) managedFactory.createManagedConnection(null, null);
        List<ConnectionEvent> onSecond = new ArrayList<>();
        second.addConnectionEventListener(recording(onSecond));
        JobQueueConnection handle = (JobQueueConnection) first.getConnection(null, null);

        second.associateConnection(handle);
        assertThat(handle.enqueue(queueName, "{}").jobId()).isNotNull();
        handle.close();
        assertThat(onSecond).hasSize(1);

        JobQueueConnection another = (JobQueueConnection) first.getConnection(null, null);
        first.cleanup();
        assertThatThrownBy(() -> another.enqueue(queueName, "{}")).isInstanceOf(IllegalStateException.class);
        first.destroy();
        assertThatThrownBy(() -> first.getConnection(null, null)).isInstanceOf(jakarta.resource.ResourceException.class);
        assertThat(managedFactory.matchManagedConnections(java.util.Set.of(second), null, null)).isSameAs(second);
    }

    @Test
    void theConnectionsOfferNoTransactions() throws Exception {
        JobQueueManagedConnection managed = (JobQueueManagedConnection) managedFactory.createManagedConnection(null, null);
        assertThatThrownBy(managed::getLocalTransaction).isInstanceOf(NotSupportedException.class);
        assertThatThrownBy(managed::getXAResource).isInstanceOf(NotSupportedException.class);
    }

    @Test
    void factoriesAreEqualByTheirSettings() {
        JobQueueManagedConnectionFactory a = new JobQueueManagedConnectionFactory();
        JobQueueManagedConnectionFactory b = new JobQueueManagedConnectionFactory();
        a.setDataSource("jdbc/orders");
        b.setDataSource(" jdbc/orders ");
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        b.setDataSource("jdbc/other");
        assertThat(a).isNotEqualTo(b);
    }

    private static ConnectionEventListener recording(List<ConnectionEvent> events) {
        return new ConnectionEventListener() {
            @Override
            public void connectionClosed(ConnectionEvent event) {
                events.add(event);
            }

            @Override
            public void localTransactionStarted(ConnectionEvent event) {
            }

            @Override
            public void localTransactionCommitted(ConnectionEvent event) {
            }

            @Override
            public void localTransactionRolledback(ConnectionEvent event) {
            }

            @Override
            public void connectionErrorOccurred(ConnectionEvent event) {
            }
        };
    }
}
