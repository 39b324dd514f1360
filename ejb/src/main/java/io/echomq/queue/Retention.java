package io.echomq.queue;

import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;

/**
 * How long finished jobs are kept, so Valkey memory stays flat. Completed and cancelled jobs
 * share one bound, dead jobs (which operators inspect and requeue) have their own. A job goes
 * when it is beyond the count or older than the age, whichever comes first.
 *
 * <p>Completed jobs are held to their bounds as they settle ({@code complete} and
 * {@code complete-claim} delete up to two of the oldest per job they complete, with the bounds
 * of {@link QueueSettings#retention()}); {@link QueueAdmin#trim} holds every finished set to them.
 *
 * @param batch the most jobs one trim script call deletes, so no call blocks the server long (a
 *              pass repeats calls until the bounds hold)
 */
public record Retention(
        int completedKeepCount,
        Duration completedMaxAge,
        int deadKeepCount,
        Duration deadMaxAge,
        int batch) {

    public static final Retention DEFAULT =
            new Retention(10_000, Duration.ofHours(24), 100_000, Duration.ofDays(30), 1_000);

    public Retention {
        RequestChecks.range("retention.completedKeepCount", completedKeepCount, 0, Integer.MAX_VALUE);
        RequestChecks.nonNegative("retention.completedMaxAge", completedMaxAge);
        RequestChecks.range("retention.deadKeepCount", deadKeepCount, 0, Integer.MAX_VALUE);
        RequestChecks.nonNegative("retention.deadMaxAge", deadMaxAge);
        RequestChecks.range("retention.batch", batch, 1, 100_000);
    }
}
