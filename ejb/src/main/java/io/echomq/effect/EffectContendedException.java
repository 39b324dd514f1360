package io.echomq.effect;

import io.echomq.queue.Lease;
import java.time.Duration;

/**
 * Another transaction held this job's effect key past {@code lock_timeout}: most likely a
 * paused earlier attempt (a zombie) with its transaction still open. Nothing was written; the
 * attempt should be retried, by which time the zombie has committed (the next attempt then
 * skips) or been cut off by {@code idle_in_transaction_session_timeout} (the next attempt applies).
 */
public class EffectContendedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public EffectContendedException(Lease lease, Duration lockTimeout, Throwable cause) {
        super("effect key of job " + lease.jobId() + " on queue '" + lease.queue() + "' is held by another transaction "
                + "for longer than lock_timeout (" + lockTimeout.toMillis() + " ms); attempt " + lease.token()
                + " wrote nothing", cause);
    }
}
