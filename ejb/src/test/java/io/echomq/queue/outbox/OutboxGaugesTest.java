package io.echomq.queue.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.internal.QueueKeys;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** The outbox gauges a relay publishes, as every node's console reads them back. */
@WithRealServices
class OutboxGaugesTest {

    private static final AtomicInteger SOURCES = new AtomicInteger();

    private static RedisClient redis;
    private static OutboxAdmin outboxes;

    private String source;

    @BeforeAll
    static void connect(ValkeyService valkey) {
        redis = valkey.newClient();
        outboxes = QueueClient.connect(redis, QueueSettings.DEFAULT).outboxAdmin();
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }

    @BeforeEach
    void freshSource() {
        source = "java:app/jdbc/gauges-" + ProcessHandle.current().pid() + "-" + SOURCES.incrementAndGet();
    }

    @Test
    void aPublishedGaugeIsReadBackByName() {
        outboxes.publishGauge(source, 7, 1_500, Duration.ofMinutes(1));

        assertThat(outboxes.gauges()).filteredOn(g -> g.source().equals(source)).singleElement().satisfies(g -> {
            assertThat(g.depth()).isEqualTo(7);
            assertThat(g.oldestAgeMs()).isEqualTo(1_500);
            assertThat(g.updatedAtMs()).isPositive();
        });
    }

    @Test
    void anOutboxWhoseGaugesExpiredDisappearsAndItsNameIsForgotten() {
        outboxes.publishGauge(source, 3, 0, Duration.ofMillis(1));
        await("the gauges expire").atMost(Duration.ofSeconds(5)).until(() -> !redis.exists(QueueKeys.outbox(source)));

        assertThat(outboxes.gauges()).noneMatch(g -> g.source().equals(source));
        assertThat(redis.zscore(QueueKeys.OUTBOXES, source)).as("the name among the outboxes").isNull();
    }
}
