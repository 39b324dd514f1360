package io.echomq.lab;

import io.echomq.queue.ClaimedJob;
import io.echomq.worker.FaultInjector;
import java.util.function.Consumer;

/**
 * Makes every delivery of one attempt die at one {@link CrashPoint}, as a killed process would:
 * the worker drops the job where it stands, with no settlement and no heartbeat, and only the
 * lease expiry brings it back. The guarantees lab's injector, and the proofs'.
 *
 * @param witness told of the crash on the worker's thread, just before the delivery dies
 */
public record SimulatedCrash(CrashPoint point, long attempt, Consumer<CrashPoint> witness) implements FaultInjector {

    /** Crashes every delivery whose attempt is {@code attempt} at {@code point}. */
    public static SimulatedCrash at(CrashPoint point, long attempt) {
        return new SimulatedCrash(point, attempt, crashed -> { });
    }

    /** The same crash, told to {@code witness}. */
    public SimulatedCrash witnessedBy(Consumer<CrashPoint> witness) {
        return new SimulatedCrash(point, attempt, witness);
    }

    // The crash point each of the worker's points stands for, in the order a delivery passes them.
    @Override public void leased(ClaimedJob job) { crashIfDue(CrashPoint.LEASE, job); }
    @Override public void effectCommitted(ClaimedJob job) { crashIfDue(CrashPoint.EFFECT, job); }
    @Override public void acknowledging(ClaimedJob job) { crashIfDue(CrashPoint.ACK, job); }
    @Override public void acknowledgementQueued(ClaimedJob job) { crashIfDue(CrashPoint.DONE, job); }

    private void crashIfDue(CrashPoint at, ClaimedJob job) {
        if (at == point && job.attempt() == attempt) {
            witness.accept(point);
            throw new FaultInjector.Crash("simulated crash at " + point);
        }
    }
}
