package io.echomq.effect;

import io.echomq.queue.Lease;

/** The handler threw: its writes and the effect row were rolled back; the attempt failed. */
public class EffectFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Lease lease;

    public EffectFailedException(Lease lease, Throwable cause) {
        super("effect of job " + lease.jobId() + " attempt " + lease.token() + " on queue '" + lease.queue()
                + "' failed and was rolled back: " + cause, cause);
        this.lease = lease;
    }

    public Lease lease() {
        return lease;
    }
}
