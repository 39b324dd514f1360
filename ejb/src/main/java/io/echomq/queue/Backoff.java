package io.echomq.queue;

import io.echomq.queue.internal.RequestChecks;
import java.time.Duration;

/**
 * Exponential backoff between attempts, computed by the retry script on the server clock:
 * the delay after attempt {@code n} is {@code min(cap, base * 2^(n-1))}. A zero base retries
 * at once.
 */
public record Backoff(Duration base, Duration cap) {

    public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofHours(1));
    public static final Backoff NONE = new Backoff(Duration.ZERO, Duration.ZERO);

    public Backoff {
        RequestChecks.nonNegative("backoff.base", base);
        RequestChecks.nonNegative("backoff.cap", cap);
        if (cap.compareTo(base) < 0) {
            throw new InvalidRequestException("backoff.cap", "must be at least the base (" + base + "), was " + cap);
        }
    }

    /** The delay the script will apply after the given attempt fails (for docs and tests). */
    public Duration delayAfter(long attempt) {
        double millis = base.toMillis() * Math.pow(2, Math.max(0, attempt - 1));
        return Duration.ofMillis((long) Math.min(cap.toMillis(), millis));
    }
}
