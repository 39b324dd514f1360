package io.echomq.effect;

import io.echomq.queue.Lease;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * The effect of several jobs at once: writes made through the given handle for the jobs
 * recorded by this transaction, inside the transaction that records them. Throwing rolls all
 * of it back.
 */
@FunctionalInterface
public interface BatchEffect {

    /** @param recorded the jobs whose effect no earlier attempt applied, in job-id order */
    void apply(Handle transaction, List<Lease> recorded) throws Exception;
}
