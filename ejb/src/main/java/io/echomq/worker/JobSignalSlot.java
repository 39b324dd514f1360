package io.echomq.worker;

import io.echomq.handler.JobSignals;
import io.echomq.queue.Progress;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One leased job's signals between its handler and the {@link LeaseKeeper}: the handler's
 * latest progress report not yet sent (written by the runner, taken by the keeper's tick; a
 * newer report replaces an unsent one, so a handler reporting in a tight loop costs no round
 * trips), and whether its cancel was requested (written by the keeper, read by the handler and
 * the runner).
 */
final class JobSignalSlot implements JobSignals {

    private final AtomicReference<Progress> unsent = new AtomicReference<>();
    /** Set by the keeper when a heartbeat's reply says an operator asked to cancel the job; read by the handler. */
    private volatile boolean cancelRequested;

    @Override
    public boolean cancelRequested() {
        return cancelRequested;
    }

    /** A heartbeat's reply said the job's cancel was requested. */
    void requestCancel() {
        cancelRequested = true;
    }

    @Override
    public void progress(int percent, String message) {
        unsent.set(new Progress(percent, message));
    }

    /** The report to send with the next extension, or null; taken, so it is sent once. */
    Progress takeUnsent() {
        return unsent.getAndSet(null);
    }

    /** A report whose heartbeat did not get through: sent with the next one, unless a newer report came meanwhile. */
    void unsentAgain(Progress progress) {
        unsent.compareAndSet(null, progress);
    }
}
