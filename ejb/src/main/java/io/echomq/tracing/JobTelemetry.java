package io.echomq.tracing;

import io.echomq.queue.Enqueued;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The engine's one seam to traces and messaging metrics: the queue client's submissions and every
 * worker's deliveries go through it. Implementations are thread-safe. Nothing here names an
 * OpenTelemetry type, so the engine loads where that API is absent.
 */
public interface JobTelemetry {

    /** No spans, no metrics, and no trace context stored with a job. */
    JobTelemetry OFF = NoTelemetry.INSTANCE;

    /**
     * Submits {@code jobs} jobs to {@code queue} in a creation span: {@code send} is given the
     * creation context to store with the jobs ({@code ""} for none) and returns the queue's
     * answers, one per job, which the span records. A failure of {@code send} is recorded and
     * rethrown.
     */
    List<Enqueued> creating(String queue, int jobs, Function<String, List<Enqueued>> send);

    /**
     * Writes {@code jobs} jobs for {@code queue} to be sent later (an outbox row, in the caller's
     * transaction) in a creation span: {@code write} is given the context to store with them
     * ({@code ""} for none), which the relay later {@linkplain #resuming resumes}.
     */
    default <T> T storing(String queue, int jobs, Function<String, T> write) {
        return write.apply("");
    }

    /**
     * Runs {@code send} with the creation context stored with a job written earlier (by
     * {@link #storing}) as the current one, so the spans made in it (the relay's {@code send})
     * join the trace of the transaction that wrote the job. Null or {@code ""}: runs it as it is.
     */
    default <T> T resuming(String stored, Supplier<T> send) {
        return send.get();
    }

    /**
     * Fires {@code slots} due slots of schedule {@code schedule} in a creation span, as
     * {@link #creating} submits: {@code fire} is given the context to store with the slots' jobs
     * ({@code ""} for none).
     */
    <T> T firing(String queue, String schedule, int slots, Function<String, T> fire);

    /**
     * The telemetry of one worker's deliveries from {@code queue}, whose leases last {@code lease}
     * (a claim's time on the server clock is its lease deadline less that).
     *
     * @param stored reads the creation contexts stored with claimed jobs; called only when a
     *               delivery is traced
     */
    Deliveries deliveries(String queue, Duration lease, CreationContexts stored);
}
