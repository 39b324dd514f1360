package io.echomq.api;

/**
 * Thrown by a handler when retrying cannot succeed (the payload is invalid, the account is
 * closed): the attempt's writes roll back and the job is dead-lettered at once, with this
 * message as its last error.
 */
public class PermanentJobFailure extends Exception {
    private static final long serialVersionUID = 1L;

    public PermanentJobFailure(String message) {
        super(message);
    }

    public PermanentJobFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
