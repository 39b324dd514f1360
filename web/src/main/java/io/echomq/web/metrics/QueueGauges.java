package io.echomq.web.metrics;

import io.echomq.queue.JobState;
import io.echomq.queue.QueueStats;
import io.echomq.queue.shard.QueueShards;
import io.echomq.runtime.EchoMqEngine;
import io.micrometer.core.instrument.Gauge;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What Valkey holds for each queue this deployment serves, read at each scrape (tag
 * {@code queue}): the jobs in each state ({@code echomq_queue_jobs}, tag {@code state}),
 * whether the queue is paused ({@code echomq_queue_paused}, 1 or 0), and how long the job
 * waiting longest has waited ({@code echomq_queue_oldest_pending_age_seconds}, see
 * {@link PendingAge}); and from PostgreSQL, how far the effect retention is behind
 * ({@code echomq_effect_retention_overdue_seconds}, see {@link #overdue}). Unlike the counters in {@link QueueMetrics}, these count every worker's
 * work, the resource adapter's and standalone workers' too, and every node reports the same
 * figures: aggregate them with {@code max}, never {@code sum}.
 */
@ApplicationScoped
public class QueueGauges {

    private QueueMetrics metrics;
    private EchoMqEngine engine;
    private Clock clock;
    /** Each queue's figures as last read: the gauges registered for it read them. */
    private final Map<String, Figures> queues = new ConcurrentHashMap<>();

    /** One queue's last figures: jobs per state (by ordinal), paused (0|1), oldest pending age and effect retention overdue in ms. */
    private record Figures(AtomicLong[] jobs, AtomicLong paused, AtomicLong oldestPendingMs, AtomicLong effectOverdueMs) {

        static Figures none() {
            AtomicLong[] jobs = new AtomicLong[JobState.values().length];
            for (int i = 0; i < jobs.length; i++) {
                jobs[i] = new AtomicLong();
            }
            return new Figures(jobs, new AtomicLong(), new AtomicLong(), new AtomicLong());
        }
    }

    /** For CDI. */
    protected QueueGauges() {
    }

    @Inject
    QueueGauges(QueueMetrics metrics, EchoMqEngine engine) {
        this(metrics, engine, Clock.systemUTC());
    }

    QueueGauges(QueueMetrics metrics, EchoMqEngine engine, Clock clock) {
        this.metrics = metrics;
        this.engine = engine;
        this.clock = clock;
    }

    /**
     * Reads every queue the engine serves. Without Valkey, or before the engine started, the
     * gauges keep their last figures and the other metrics still answer.
     */
    public void read() {
        Set<String> queues;
        try {
            queues = engine.queues();
        } catch (RuntimeException notStarted) {
            return;
        }
        for (String queue : queues) {
            // Each queue and each store on its own: a scrape never fails, and a queue whose read
            // failed keeps its last figures without holding back the others.
            readQuietly(() -> read(engine.shards(), queue));
            readQuietly(() -> recordEffectOverdue(queue, overdue(engine.effects().oldestRowAge(queue),
                    engine.config().maintenance().effectRowLifetime())));
        }
    }

    private static void readQuietly(Runnable reading) {
        try {
            reading.run();
        } catch (RuntimeException unavailable) {
            // Valkey or PostgreSQL unreachable: the gauges keep their last figures.
        }
    }

    /** One queue as every shard of it holds it: counts summed, the oldest pending job of any shard. */
    void read(QueueShards shards, String queue) {
        Instant now = Instant.now(clock);
        Duration oldest = shards.partsOf(queue).stream().map(shard -> PendingAge.oldestPending(shard.reads(), queue, now))
                .max(Comparator.naturalOrder()).orElse(Duration.ZERO);
        record(shards.stats(queue), oldest);
    }

    void record(QueueStats stats, Duration oldestPending) {
        Figures figures = queues.computeIfAbsent(stats.queue(), this::register);
        for (JobState state : JobState.values()) {
            figures.jobs()[state.ordinal()].set(stats.count(state));
        }
        figures.paused().set(stats.paused() ? 1 : 0);
        figures.oldestPendingMs().set(oldestPending.toMillis());
    }

    /**
     * How long the oldest effect row has outlived the longest a finished job's row lives (its
     * retention age, and until the retention walk reaches it): zero while the effect retention
     * keeps up. A row whose job Valkey still holds unfinished is kept on purpose and counts too.
     */
    static Duration overdue(Optional<Duration> oldestRowAge, Duration rowLifetime) {
        return oldestRowAge.map(age -> age.minus(rowLifetime)).filter(d -> !d.isNegative()).orElse(Duration.ZERO);
    }

    void recordEffectOverdue(String queue, Duration overdue) {
        queues.computeIfAbsent(queue, this::register).effectOverdueMs().set(overdue.toMillis());
    }

    private Figures register(String queue) {
        Figures figures = Figures.none();
        metrics.register(registry -> {
            for (JobState state : JobState.values()) {
                Gauge.builder("echomq.queue.jobs", figures.jobs()[state.ordinal()], AtomicLong::get)
                        .description("jobs Valkey holds in the queue, per state")
                        .tags("queue", queue, "state", state.wireName()).register(registry);
            }
            Gauge.builder("echomq.queue.paused", figures.paused(), AtomicLong::get)
                    .description("1 while the queue is paused (no job is handed out)").tag("queue", queue).register(registry);
            Gauge.builder("echomq.queue.oldest.pending.age.seconds", figures.oldestPendingMs(), ms -> ms.get() / 1000.0)
                    .description("how long the job waiting longest to be claimed has waited; 0 when none waits")
                    .tag("queue", queue).register(registry);
            Gauge.builder("echomq.effect.retention.overdue.seconds", figures.effectOverdueMs(), ms -> ms.get() / 1000.0)
                    .description("how long the oldest effect row has outlived its retention; 0 while the effect retention keeps up")
                    .tag("queue", queue).register(registry);
        });
        return figures;
    }
}
