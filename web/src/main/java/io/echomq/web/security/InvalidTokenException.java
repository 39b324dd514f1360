package io.echomq.web.security;

/**
 * A token that is not accepted: a bad signature, another issuer or audience, expired, or
 * malformed. The message says which, in words fit for the caller (it names no key and no
 * secret): it becomes the {@code error_description} of the 401 challenge.
 */
public class InvalidTokenException extends Exception {
    private static final long serialVersionUID = 1L;

    public InvalidTokenException(String reason) {
        super(reason);
    }

    public InvalidTokenException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
