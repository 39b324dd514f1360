package io.echomq.queue;

import io.echomq.queue.internal.RequestChecks;
import java.time.Instant;

/**
 * How far a running job says it got: a whole percent and a short message. Reported by the
 * lease's holder and recorded by a fenced heartbeat (a stale lease's report changes nothing).
 *
 * @param percent  0 to 100
 * @param message  at most {@link #MAX_MESSAGE_CHARS} characters, no control characters ("" for none)
 */
public record Progress(int percent, String message) {

    /** Longest progress message kept; a longer one is cut. */
    public static final int MAX_MESSAGE_CHARS = 200;

    /**
     * Checks the percent and tidies the message: cut to {@link #MAX_MESSAGE_CHARS}, control
     * characters made spaces, null made empty.
     *
     * @throws InvalidRequestException naming {@code percent} when it is outside 0..100
     */
    public Progress {
        RequestChecks.range("percent", percent, 0, 100);
        String text = message == null ? "" : message;
        if (text.length() > MAX_MESSAGE_CHARS) {
            text = text.substring(0, MAX_MESSAGE_CHARS);
        }
        StringBuilder clean = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> clean.appendCodePoint(Character.isISOControl(cp) ? ' ' : cp));
        message = clean.toString();
    }

    /**
     * Progress as recorded on a job: by which attempt, and when (Valkey's clock).
     */
    public record Reported(int percent, String message, long attempt, Instant at) {
    }
}
