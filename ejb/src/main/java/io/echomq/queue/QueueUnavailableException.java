package io.echomq.queue;

/**
 * Valkey cannot take the request now (unreachable, out of memory under {@code noeviction},
 * busy with a long script). Nothing was acknowledged: the caller may retry later. An API
 * answers 503. The subclass {@link QueueOutcomeUnknownException} says the request was sent and
 * may have run: resending it is the caller's decision.
 */
public class QueueUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public QueueUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
