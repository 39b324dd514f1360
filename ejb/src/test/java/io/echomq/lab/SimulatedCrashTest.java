package io.echomq.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.ClaimedJob;
import io.echomq.queue.Lease;
import io.echomq.worker.FaultInjector;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The lab's crash stops the one delivery it names, at the one point it names, and says so first. */
class SimulatedCrashTest {

    /** The seam's points in the order a delivery passes them, each with the crash point it stands for. */
    private static final List<Passing> DELIVERY = List.of(
            new Passing(CrashPoint.LEASE, FaultInjector::leased),
            new Passing(CrashPoint.EFFECT, FaultInjector::effectCommitted),
            new Passing(CrashPoint.ACK, FaultInjector::acknowledging),
            new Passing(CrashPoint.DONE, FaultInjector::acknowledgementQueued));

    private record Passing(CrashPoint point, PointCall call) {
    }

    @FunctionalInterface
    private interface PointCall {
        void pass(FaultInjector faults, ClaimedJob job);
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void theNamedAttemptDiesAtTheNamedPointAfterPassingTheEarlierOnes(CrashPoint point) {
        List<CrashPoint> witnessed = new ArrayList<>();
        FaultInjector crash = SimulatedCrash.at(point, 1).witnessedBy(witnessed::add);
        ClaimedJob firstAttempt = attempt(1);

        List<CrashPoint> passed = new ArrayList<>();
        assertThatThrownBy(() -> deliver(crash, firstAttempt, passed::add))
                .isInstanceOf(FaultInjector.Crash.class)
                .hasMessage("simulated crash at " + point);

        assertThat(passed).as("points passed before the crash").containsExactlyElementsOf(
                DELIVERY.stream().map(Passing::point).takeWhile(p -> p != point).toList());
        assertThat(witnessed).containsExactly(point);
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void otherAttemptsPassEveryPoint(CrashPoint point) {
        List<CrashPoint> witnessed = new ArrayList<>();
        FaultInjector crash = SimulatedCrash.at(point, 1).witnessedBy(witnessed::add);

        List<CrashPoint> passed = new ArrayList<>();
        deliver(crash, attempt(2), passed::add);

        assertThat(passed).containsExactly(CrashPoint.values());
        assertThat(witnessed).isEmpty();
    }

    private static void deliver(FaultInjector faults, ClaimedJob job, Consumer<CrashPoint> passed) {
        for (Passing passing : DELIVERY) {
            passing.call().pass(faults, job);
            passed.accept(passing.point());
        }
    }

    private static ClaimedJob attempt(long attempt) {
        return new ClaimedJob(new Lease("lab-test", "1", 1_000, attempt), "{}", "default", Instant.EPOCH.plusSeconds(30));
    }
}
