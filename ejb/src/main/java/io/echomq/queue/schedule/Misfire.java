package io.echomq.queue.schedule;

import io.echomq.queue.InvalidRequestException;
import io.echomq.queue.WireName;
import java.util.Locale;

/**
 * What a schedule does with slots it missed: slots more than the schedule's misfire grace late
 * when a server first got to them (every server was down, or the schedule's queue unreachable).
 * Slots that came due while the schedule was paused are skipped whatever the policy.
 */
public enum Misfire implements WireName {
    /** Fire none of the missed slots; go on with the next one on time. */
    SKIP,
    /** Fire the latest missed slot once, for all of them. */
    RUN_ONCE,
    /** Fire each missed slot, up to the schedule's misfire limit (the latest ones; older ones beyond it are skipped). */
    RUN_EACH;

    /** How many missed slots one catch-up may fire under this policy. */
    public int allowed(int limit) {
        return switch (this) {
            case SKIP -> 0;
            case RUN_ONCE -> 1;
            case RUN_EACH -> limit;
        };
    }

    /** @throws InvalidRequestException naming {@code field} for any other text */
    public static Misfire of(String field, String text) {
        return WireName.find(Misfire.class, text == null ? "" : text.strip().toLowerCase(Locale.ROOT).replace('_', '-'))
                .orElseThrow(() -> new InvalidRequestException(field, "must be one of " + WireName.all(Misfire.class)
                        + ", was " + (text == null ? "nothing" : "'" + text + "'")));
    }
}
