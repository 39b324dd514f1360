package io.echomq.web.metrics;

import io.echomq.queue.JobEvent;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.JobView;
import io.echomq.queue.QueueReads;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * How long the job waiting longest to be claimed has waited: the queue-age signal an operator
 * alerts on. Two kinds of job wait:
 * <ul>
 * <li>the first pending job in claim order (across lanes; within one, highest priority first,
 * then oldest), waiting since it became pending: its latest history entry that moved it, so a
 * retried job counts from its return, not from its creation;</li>
 * <li>the delayed job due first, once its due time has passed, waiting since that time: only a
 * claim moves due jobs to pending, so with no worker claiming they pile up there.</li>
 * </ul>
 * A low-priority job behind higher-priority ones can have waited longer than the first in claim
 * order; it is claimed after them, which is what a priority asks for.
 *
 * <p>Plain reads (no script): a job claimed between them is at worst measured once more.
 * Times come from the server clock (history, due times) and are compared with {@code now}, a
 * node's clock: a skew of seconds is noise beside thresholds of minutes.
 */
final class PendingAge {

    /** History entries that leave a job where it was: they do not start its wait again. */
    private static final Set<String> NOT_MOVES = Set.of("rejected", "replaced");

    private PendingAge() {
    }

    /** The longest wait in {@code queue} at {@code now}; zero when no job waits. */
    static Duration oldestPending(QueueReads reads, String queue, Instant now) {
        Optional<Instant> since = Stream.of(firstPendingSince(reads, queue), firstOverdueSince(reads, queue, now))
                .flatMap(Optional::stream).min(Comparator.naturalOrder());
        return since.map(t -> Duration.between(t, now)).filter(d -> !d.isNegative()).orElse(Duration.ZERO);
    }

    private static Optional<Instant> firstPendingSince(QueueReads reads, String queue) {
        JobPage first = reads.jobs(queue, JobState.PENDING, Optional.empty(), 1);
        if (first.jobs().isEmpty()) {
            return Optional.empty();
        }
        JobView job = first.jobs().get(0);
        List<JobEvent> history = reads.history(queue, job.id());
        for (int i = history.size() - 1; i >= 0; i--) {
            if (!NOT_MOVES.contains(history.get(i).event())) {
                return Optional.of(history.get(i).at());
            }
        }
        return Optional.of(job.createdAt());
    }

    private static Optional<Instant> firstOverdueSince(QueueReads reads, String queue, Instant now) {
        List<Map.Entry<String, Long>> first = reads.idsInState(queue, JobState.DELAYED, Long.MIN_VALUE, 1);
        return first.stream().map(e -> Instant.ofEpochMilli(e.getValue())).filter(due -> !due.isAfter(now)).findFirst();
    }
}
