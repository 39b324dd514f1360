package io.echomq.handler;

import io.echomq.queue.FlowChild;
import java.util.List;

/**
 * What a running handler tells its worker while it holds the job's lease, and learns from it. The worker sends it
 * with the lease's fenced heartbeat, so a handler whose lease was lost changes nothing.
 */
public interface JobSignals {

    /**
     * Reports how far the job got; only the latest report counts. It is recorded within about a
     * second (with the next tick of the worker's lease keeper), not once per call.
     *
     * @param percent 0 to 100
     * @param message a short text (cut to 200 characters; control characters become spaces)
     * @throws IllegalArgumentException when the percent is outside 0..100
     */
    void progress(int percent, String message);

    /**
     * Whether an operator asked to cancel the job. Learned from the lease's heartbeat, so it
     * turns true within a heartbeat interval of the request, and stays true.
     */
    default boolean cancelRequested() {
        return false;
    }

    /**
     * This job's flow children and their outcomes, as its parent's record shows them (read from
     * Valkey when asked); empty for a job that is no flow parent.
     */
    default List<FlowChild> flowChildren() {
        return List.of();
    }

    /** Signals that go nowhere (contexts built outside a worker: tests, benchmarks); the percent is still checked. */
    JobSignals NONE = (percent, message) -> {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("percent must be between 0 and 100, was " + percent);
        }
    };
}
