package io.echomq.web.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.outbox.OutboxGauge;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What an operator scraping /metrics sees of the resource adapters' outboxes. */
class QueueMetricsTest {

    @Test
    void eachOutboxsDepthAndOldestAgeAreGaugesTaggedWithItsDataSource() {
        QueueMetrics metrics = new QueueMetrics();

        metrics.outboxes(List.of(new OutboxGauge("jdbc/orders", 12, 3_500, 1L), new OutboxGauge("jdbc/billing", 0, 0, 1L)));
        metrics.outboxes(List.of(new OutboxGauge("jdbc/orders", 40, 9_000, 2L)));
        String scrape = metrics.scrape();

        assertThat(scrape).contains("echomq_outbox_depth{data_source=\"jdbc/orders\"} 40.0")
                .contains("echomq_outbox_oldest_age_seconds{data_source=\"jdbc/orders\"} 9.0")
                .contains("echomq_outbox_depth{data_source=\"jdbc/billing\"} 0.0");
    }

    @Test
    void eachOutboxsDeadRowsAreAGaugeTaggedWithItsDataSource() {
        QueueMetrics metrics = new QueueMetrics();

        metrics.outboxDeadRows("jdbc/orders", 3);
        metrics.outboxDeadRows("jdbc/orders", 2);
        metrics.outboxDeadRows("jdbc/billing", 0);

        assertThat(metrics.scrape()).contains("echomq_outbox_dead_rows{data_source=\"jdbc/orders\"} 2.0")
                .contains("echomq_outbox_dead_rows{data_source=\"jdbc/billing\"} 0.0");
    }

    @Test
    void jobsClaimedAreCountedPerQueueAndAQueueAskedForNothingShowsZero() {
        QueueMetrics metrics = new QueueMetrics();

        metrics.claimCall("orders", Duration.ofMillis(2), 3);
        metrics.claimCall("orders", Duration.ofMillis(1), 2);
        metrics.claimCall("idle", Duration.ofMillis(1), 0);

        assertThat(metrics.scrape()).contains("echomq_jobs_claimed_total{queue=\"orders\"} 5.0")
                .contains("echomq_jobs_claimed_total{queue=\"idle\"} 0.0");
    }
}
