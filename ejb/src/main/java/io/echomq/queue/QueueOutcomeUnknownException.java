package io.echomq.queue;

/**
 * A script that must not run twice was sent to Valkey once, and its reply was lost (the
 * connection broke or timed out after the request left): it may or may not have run. It was
 * not sent again, so nothing ran twice on the caller's behalf; the caller decides what the
 * unknown outcome means. An unkeyed submission may have created its job (resubmitting could
 * make a second); a keyed one is safe to resubmit with the same key; an acknowledgement that
 * did run answers a resend as no longer leased. An API answers 503 saying the outcome is
 * unknown.
 *
 * <p>A {@link QueueUnavailableException}, so code that treats Valkey's unavailability as "leave
 * the lease to expire" treats this the same; code that would resend on unavailability must
 * catch this type first.
 */
public class QueueOutcomeUnknownException extends QueueUnavailableException {
    private static final long serialVersionUID = 1L;

    public QueueOutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
