package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.JobEvent;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.queue.QueueUnavailableException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;

/**
 * The one checker every reliability scenario uses (in the manner of Jepsen's queue checker):
 * after a full drain, the set of acknowledged submissions is compared with the demo ledger, the
 * effect that must happen once per job, and with the queue's own record of each job.
 *
 * <pre>{@code
 * Verdict verdict = ReliabilityChecker.check("valkey-kill-9", faults, recoveryMs, queue, "payments", ledger, acknowledged);
 * verdict.print().assertNothingLostNothingTwice();
 * }</pre>
 */
public final class ReliabilityChecker {

    /** The event a job's history records when a stale worker's settlement was refused. */
    private static final String REFUSED_SETTLEMENT = "rejected";

    private ReliabilityChecker() {
    }

    /**
     * @param acknowledged ids of the jobs whose submission was acknowledged and whose effect must be applied
     * @param ledger       the database holding {@code echomq.demo_ledger}
     */
    public static Verdict check(String scenario, int faults, long recoveryMs, QueueClient queue, String queueName, Jdbi ledger,
                                Collection<String> acknowledged) {
        Map<String, Long> effects = effectsPerJob(ledger, queueName);
        long lost = acknowledged.stream().filter(id -> !effects.containsKey(id)).count();
        long duplicates = effects.values().stream().mapToLong(rows -> rows - 1).sum();
        long deliveries = 0;
        long fenced = 0;
        long unsettled = 0;
        for (String id : acknowledged) {
            Optional<JobView> job = queue.reads().job(queueName, id);
            deliveries += job.map(JobView::attempts).orElse(0L);
            unsettled += job.filter(j -> j.state() == JobState.COMPLETED).isPresent() ? 0 : 1;
            fenced += queue.reads().history(queueName, id).stream().map(JobEvent::event).filter(REFUSED_SETTLEMENT::equals).count();
        }
        return new Verdict(scenario, acknowledged.size(), faults, lost, duplicates, deliveries, fenced, unsettled, recoveryMs,
                Map.of());
    }

    /** Ledger rows per job id of one queue: one row per applied effect. */
    static Map<String, Long> effectsPerJob(Jdbi ledger, String queueName) {
        Map<String, Long> rows = new HashMap<>();
        ledger.useHandle(h -> h.createQuery("SELECT job_id, count(*) AS n FROM echomq.demo_ledger WHERE queue = :queue GROUP BY job_id")
                .bind("queue", queueName)
                .map((rs, ctx) -> Map.entry(Long.toString(rs.getLong("job_id")), rs.getLong("n")))
                .forEach(e -> rows.put(e.getKey(), e.getValue())));
        return rows;
    }

    /**
     * Waits until nothing is left to work (no job pending, delayed or active) and at least
     * {@code finished} jobs are completed or dead; fails with the counts otherwise.
     */
    public static void awaitDrained(QueueClient queue, String queueName, long finished, Duration timeout) {
        await("queue " + queueName + " drained, " + finished + " jobs finished").atMost(timeout).pollInterval(Duration.ofMillis(100))
                .ignoreException(QueueUnavailableException.class)
                .untilAsserted(() -> {
                    QueueStats stats = queue.reads().stats(queueName);
                    assertThat(stats.completed() + stats.dead()).as("jobs finished: %s", stats).isGreaterThanOrEqualTo(finished);
                    assertThat(stats.pending() + stats.delayed() + stats.active()).as("jobs left to work: %s", stats).isZero();
                });
    }

    /**
     * Milliseconds from {@code faultStartedNanos} until the queue completes another job, or has
     * nothing left to work; call it right after the fault ends. A queue that cannot answer has
     * not recovered.
     */
    public static long recoveryMs(QueueClient queue, String queueName, long faultStartedNanos, Duration timeout) {
        AtomicLong completedWhenFirstAnswered = new AtomicLong(-1);
        await("a job of " + queueName + " completed after the fault ended").atMost(timeout)
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                .ignoreException(QueueUnavailableException.class)
                .until(() -> {
                    QueueStats now = queue.reads().stats(queueName);
                    boolean idle = now.pending() + now.delayed() + now.active() == 0;
                    completedWhenFirstAnswered.compareAndSet(-1, now.completed());
                    return idle || now.completed() > completedWhenFirstAnswered.get();
                });
        return (System.nanoTime() - faultStartedNanos) / 1_000_000;
    }
}
