package io.echomq.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A duty that changes something every second writes a log line a minute, and no change goes unreported. */
class ChangeTallyTest {

    private static final long SECOND = 1_000_000_000L;
    private static final Pass TEN_ROWS = Pass.effectRowsDeleted(10);

    @Test
    void theFirstChangeIsReportedAtOnceAndTheNextMinutesChangesInOneLine() {
        ChangeTally tally = new ChangeTally();

        assertThat(tally.add(TEN_ROWS, 0)).isEqualTo(TEN_ROWS);
        int lines = 0;
        int reported = 0;
        for (int second = 1; second <= 120; second++) {
            Pass line = tally.add(TEN_ROWS, second * SECOND);
            if (line != null) {
                lines++;
                reported += line.effectRowsDeleted();
            }
        }

        assertThat(lines).isEqualTo(2);
        assertThat(reported).isEqualTo(1_200);
    }

    @Test
    void changesAfterALineAreReportedByARunThatChangedNothing() {
        ChangeTally tally = new ChangeTally();
        tally.add(TEN_ROWS, 0);
        assertThat(tally.add(TEN_ROWS, 30 * SECOND)).isNull();

        assertThat(tally.add(Pass.NOTHING, 61 * SECOND)).isEqualTo(TEN_ROWS);
    }

    @Test
    void runsThatChangeNothingWriteNoLine() {
        ChangeTally tally = new ChangeTally();

        assertThat(tally.add(Pass.NOTHING, 0)).isNull();
        assertThat(tally.add(Pass.NOTHING, 120 * SECOND)).isNull();
    }
}
