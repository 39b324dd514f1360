package io.echomq.tracing;

import io.echomq.queue.ClaimedJob;
import java.util.function.Supplier;

/**
 * One delivery of a job or a batch, current on the runner's thread until closed, so the
 * handler's own spans are its children.
 */
public interface Processing extends AutoCloseable {

    /** Runs the effect transaction in a span of its own; a failure is recorded and rethrown. */
    <T> T effect(Supplier<T> transaction);

    /**
     * The run of {@code job} came to this, and its settlement starts.
     *
     * @param errorType null when its effect is in; else what went wrong, as {@code error.type}
     */
    void settling(ClaimedJob job, String errorType);

    /** Ends the delivery. */
    @Override
    void close();
}
