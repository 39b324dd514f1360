package io.echomq.queue.schedule;

import io.echomq.queue.InvalidRequestException;
import java.util.Arrays;
import java.util.Locale;

/**
 * What a schedule does with slots it missed: slots more than the schedule's misfire grace late
 * when a server first got to them (every server was down, or the schedule's queue unreachable).
 * Slots that came due while the schedule was paused are skipped whatever the policy.
 */
public enum Misfire {
    /** Fire none of the missed slots; go on with the next one on time. */
    SKIP("skip"),
    /** Fire the latest missed slot once, for all of them. */
    RUN_ONCE("run-once"),
    /** Fire each missed slot, up to the schedule's misfire limit (the latest ones; older ones beyond it are skipped). */
    RUN_EACH("run-each");

    private final String wireName;

    Misfire(String wireName) {
        this.wireName = wireName;
    }

    /** The name in configuration, the API and the scripts: {@code skip}, {@code run-once}, {@code run-each}. */
    public String wireName() {
        return wireName;
    }

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
        if (text != null) {
            String wanted = text.strip().toLowerCase(Locale.ROOT).replace('_', '-');
            for (Misfire m : values()) {
                if (m.wireName.equals(wanted)) {
                    return m;
                }
            }
        }
        throw new InvalidRequestException(field, "must be one of " + Arrays.stream(values()).map(Misfire::wireName).toList()
                + ", was " + (text == null ? "nothing" : "'" + text + "'"));
    }
}
