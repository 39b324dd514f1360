package io.echomq.api;

/**
 * An enqueue that could not be done, or whose outcome is unknown: the message says which and
 * whether retrying is safe (it is when the request carries an idempotency key).
 */
public class JobQueueException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JobQueueException(String message) {
        super(message);
    }

    public JobQueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
