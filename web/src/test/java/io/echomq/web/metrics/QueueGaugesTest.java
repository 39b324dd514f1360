package io.echomq.web.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Backoff;
import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Enqueued;
import io.echomq.queue.FailureKind;
import io.echomq.queue.JobEvent;
import io.echomq.queue.NewJob;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueSettings;
import io.echomq.queue.ServerClock;
import io.echomq.queue.shard.QueueShards;
import io.echomq.testkit.ValkeyService;
import io.echomq.testkit.WithRealServices;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** What an operator scraping /metrics sees of each queue as Valkey holds it: depth per state, paused, queue age. */
@WithRealServices
class QueueGaugesTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final RedisClient redis;
    private final QueueClient client;
    private final String queue = "gauges-" + UUID.randomUUID();

    QueueGaugesTest(ValkeyService valkey) {
        redis = valkey.newClient();
        client = QueueClient.connect(redis, QueueSettings.DEFAULT);
    }

    @AfterEach
    void closeClient() {
        redis.close();
    }

    @Test
    void eachQueuesJobsPerStateAndItsPauseAreGaugesTaggedWithTheQueue() {
        client.submissions().enqueue(queue, NewJob.of("a"));
        client.submissions().enqueue(queue, NewJob.of("b"));
        client.submissions().enqueue(queue, NewJob.of("later").delayedBy(Duration.ofHours(1)));
        client.leases().claim(queue, LEASE, 1, "worker-a");
        client.admin().pause(queue);
        QueueMetrics metrics = new QueueMetrics();

        gaugesAt(metrics, Instant.now()).read(QueueShards.none(client), queue);

        assertThat(metrics.scrape())
                .contains("echomq_queue_jobs{queue=\"" + queue + "\",state=\"pending\"} 1.0")
                .contains("echomq_queue_jobs{queue=\"" + queue + "\",state=\"active\"} 1.0")
                .contains("echomq_queue_jobs{queue=\"" + queue + "\",state=\"delayed\"} 1.0")
                .contains("echomq_queue_jobs{queue=\"" + queue + "\",state=\"dead\"} 0.0")
                .contains("echomq_queue_paused{queue=\"" + queue + "\"} 1.0");
    }

    @Test
    void anEmptyQueuesOldestPendingAgeIsZero() {
        QueueMetrics metrics = new QueueMetrics();

        gaugesAt(metrics, Instant.now()).read(QueueShards.none(client), queue);

        assertThat(metrics.scrape()).contains("echomq_queue_oldest_pending_age_seconds{queue=\"" + queue + "\"} 0.0");
    }

    @Test
    void aPendingJobHasWaitedSinceItWasEnqueued() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("a"));
        Instant created = client.reads().job(queue, job.id()).orElseThrow().createdAt();

        assertThat(PendingAge.oldestPending(client.reads(), queue, created.plusSeconds(90))).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void aRetriedJobHasWaitedSinceItWentBackNotSinceItWasCreated() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("a"));
        Instant created = client.reads().job(queue, job.id()).orElseThrow().createdAt();
        ClaimedJob claimed = client.leases().claim(queue, LEASE, 1, "worker-a").get(0);
        ServerClock.of(redis, queue).awaitReaching(created.toEpochMilli() + 50);
        client.leases().retry(claimed.lease(), "boom", Backoff.NONE, FailureKind.RETRYABLE);
        List<JobEvent> history = client.reads().history(queue, job.id());
        Instant returned = history.get(history.size() - 1).at();
        Instant now = returned.plusSeconds(10);

        Duration age = PendingAge.oldestPending(client.reads(), queue, now);

        assertThat(age).isEqualTo(Duration.ofSeconds(10)).isLessThan(Duration.between(created, now));
    }

    @Test
    void aDelayedJobPastItsDueTimeHasWaitedSinceThatTime() {
        Enqueued job = client.submissions().enqueue(queue, NewJob.of("later").delayedBy(Duration.ofHours(1)));
        Instant due = client.reads().job(queue, job.id()).orElseThrow().dueAt().orElseThrow();
        QueueMetrics metrics = new QueueMetrics();

        gaugesAt(metrics, due.plus(Duration.ofMinutes(5))).read(QueueShards.none(client), queue);

        assertThat(PendingAge.oldestPending(client.reads(), queue, due.minusSeconds(1))).isZero();
        assertThat(metrics.scrape()).contains("echomq_queue_oldest_pending_age_seconds{queue=\"" + queue + "\"} 300.0");
    }

    @Test
    void effectRetentionIsOverdueByWhatTheOldestRowOutlivedItsLifetime() {
        Duration lifetime = Duration.ofHours(24);

        assertThat(QueueGauges.overdue(Optional.of(Duration.ofHours(25)), lifetime)).isEqualTo(Duration.ofHours(1));
        assertThat(QueueGauges.overdue(Optional.of(Duration.ofHours(23)), lifetime)).isZero();
        assertThat(QueueGauges.overdue(Optional.empty(), lifetime)).isZero();
    }

    @Test
    void effectRetentionOverdueIsAGaugeTaggedWithTheQueue() {
        QueueMetrics metrics = new QueueMetrics();

        gaugesAt(metrics, Instant.now()).recordEffectOverdue(queue, Duration.ofMinutes(90));

        assertThat(metrics.scrape()).contains("echomq_effect_retention_overdue_seconds{queue=\"" + queue + "\"} 5400.0");
    }

    private static QueueGauges gaugesAt(QueueMetrics metrics, Instant now) {
        return new QueueGauges(metrics, null, Clock.fixed(now, ZoneOffset.UTC));
    }
}
