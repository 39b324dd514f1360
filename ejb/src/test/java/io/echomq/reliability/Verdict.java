package io.echomq.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the {@link ReliabilityChecker} found after one scenario's drain, and its one summary line.
 *
 * @param size       acknowledged submissions whose effect must be applied
 * @param lost       acknowledged submissions without an effect after the drain
 * @param duplicates effects applied more than once (ledger rows beyond the first, per job)
 * @param deliveries attempts minted over all checked jobs (each claim mints one)
 * @param fenced     settlements refused because a newer lease held the job (stale tokens)
 * @param unsettled  checked jobs that did not end completed
 * @param recoveryMs the longest time from a fault until jobs completed again
 */
public record Verdict(String scenario, int size, int faults, long lost, long duplicates, long deliveries, long fenced,
                      long unsettled, long recoveryMs, Map<String, Object> figures) {

    /** The same verdict with one more scenario-specific figure at the end of the summary line. */
    public Verdict with(String name, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(figures);
        more.put(name, value);
        return new Verdict(scenario, size, faults, lost, duplicates, deliveries, fenced, unsettled, recoveryMs, more);
    }

    /** E.g. {@code reliability scenario=valkey-kill-9 size=2000 faults=5 lost=0 duplicates=0 deliveries=2041 fenced=3 recovery_ms=812}. */
    public String summaryLine() {
        StringBuilder line = new StringBuilder(String.format(
                "reliability scenario=%s size=%d faults=%d lost=%d duplicates=%d deliveries=%d fenced=%d recovery_ms=%d",
                scenario, size, faults, lost, duplicates, deliveries, fenced, recoveryMs));
        figures.forEach((name, value) -> line.append(' ').append(name).append('=').append(value));
        return line.toString();
    }

    /** Prints the summary line (CI's log shows one per scenario). */
    public Verdict print() {
        System.out.println(summaryLine());
        return this;
    }

    /** The guarantee: every acknowledged job applied exactly once and completed. */
    public void assertNothingLostNothingTwice() {
        assertThat(lost).as("lost: %s", summaryLine()).isZero();
        assertThat(duplicates).as("duplicate effects: %s", summaryLine()).isZero();
        assertThat(unsettled).as("acknowledged jobs not completed: %s", summaryLine()).isZero();
        assertThat(deliveries).as("deliveries: %s", summaryLine()).isGreaterThanOrEqualTo(size);
    }

    /** For a negative control: the checker must see the violation the fault was made to cause. */
    public void assertViolationDetected() {
        assertThat(lost + duplicates).as("the checker must report a violation: %s", summaryLine()).isPositive();
    }
}
