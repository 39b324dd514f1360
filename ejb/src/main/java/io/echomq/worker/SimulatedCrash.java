package io.echomq.worker;

/**
 * Thrown by a {@link FaultInjector} to make the worker behave as if its process died at a
 * {@link CrashPoint}: the job is abandoned where it stands, with no settlement and no
 * heartbeat, and only the lease expiry brings it back.
 */
public class SimulatedCrash extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final CrashPoint point;

    public SimulatedCrash(CrashPoint point) {
        super("simulated crash at " + point, null, false, false);
        this.point = point;
    }

    public CrashPoint point() {
        return point;
    }
}
