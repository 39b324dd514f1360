package io.echomq.queue;

/**
 * A request the queue refuses before touching Valkey: the message says what is wrong and
 * {@link #field()} names the input at fault, so an API can answer 400 and point at it.
 */
public class InvalidRequestException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidRequestException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
