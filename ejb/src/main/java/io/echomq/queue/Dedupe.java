package io.echomq.queue;

import java.time.Duration;

/**
 * A submission's dedupe key and window: of the submissions with one key within one window (on the
 * Valkey server's clock), {@link Mode#THROTTLE} keeps the first and drops the others, and
 * {@link Mode#DEBOUNCE} keeps the last. Unlike an idempotency key, which names one job for as long
 * as the queue holds it, a dedupe key names a window: once it is over, the key makes a new job.
 * Judged after the idempotency key: a submission whose idempotency key is known answers that job
 * and changes nothing.
 *
 * @param key    names the window (1 to 255 characters, no control characters)
 * @param window how long the window lasts (at least 1 ms, at most {@link #MAX_WINDOW})
 * @param mode   which submission of the window wins
 *               (each is checked at submission, as {@code dedupe.key}, {@code dedupe.windowMs}, {@code dedupe.mode})
 */
public record Dedupe(String key, Duration window, Mode mode) {

    /** The longest window: memory for a key is held that long at most. */
    public static final Duration MAX_WINDOW = Duration.ofDays(30);

    /** Which submission of a window wins. */
    public enum Mode implements WireName {
        /**
         * The last: the first submission makes a job delayed by the window; each later one within
         * the window, while that job still waits (delayed, never claimed), replaces its payload,
         * lane and max attempts and delays it by the window again (the trailing edge). A
         * submission after the job was claimed, finished or cancelled makes a new job.
         */
        DEBOUNCE,
        /** The first: a submission within the window of the key's job makes nothing and answers that job. */
        THROTTLE
    }

    public static Dedupe debounce(String key, Duration window) {
        return new Dedupe(key, window, Mode.DEBOUNCE);
    }

    public static Dedupe throttle(String key, Duration window) {
        return new Dedupe(key, window, Mode.THROTTLE);
    }
}
