package io.echomq.reliability;

import io.echomq.queue.QueueClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/**
 * The shape most scenarios share: paced submissions while a worker drains, one fault injected at
 * even intervals during the run, the recovery after each timed, then a full drain and the check.
 */
final class FaultedLoad {

    private static final Duration RECOVERY_LIMIT = Duration.ofMinutes(2);
    private static final Duration DRAIN_LIMIT = Duration.ofMinutes(4);

    /** One fault, injected and ended (e.g. kill the server, then restart it). */
    @FunctionalInterface
    interface Fault {
        void inject() throws Exception;
    }

    private FaultedLoad() {
    }

    /**
     * @param earlier jobs acknowledged before the run (e.g. a throughput burst), checked with the rest
     */
    static Verdict run(String scenario, QueueClient queue, String queueName, Jdbi ledger, List<String> earlier,
                       int jobs, Duration spread, int faults, Fault fault) throws Exception {
        long recoveryMs = 0;
        try (SubmissionLoad load = SubmissionLoad.start(queue, queueName, jobs, spread)) {
            for (int i = 0; i < faults; i++) {
                Thread.sleep(spread.dividedBy(faults + 1).toMillis());
                long faultStarted = System.nanoTime();
                fault.inject();
                recoveryMs = Math.max(recoveryMs,
                        ReliabilityChecker.recoveryMs(queue, queueName, faultStarted, RECOVERY_LIMIT));
            }
            load.awaitSubmitted(spread.plus(RECOVERY_LIMIT));
            List<String> acknowledged = new ArrayList<>(earlier);
            acknowledged.addAll(load.acknowledged());
            ReliabilityChecker.awaitDrained(queue, queueName, acknowledged.size(), DRAIN_LIMIT);
            return ReliabilityChecker.check(scenario, faults, recoveryMs, queue, queueName, ledger, acknowledged)
                    .with("refused_submissions", load.refused());
        }
    }
}
