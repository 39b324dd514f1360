package io.echomq.testkit;

/**
 * No server could be found or started. Thrown into the test that asked for it, so the test fails
 * (never skips): green must mean the code ran against a real server.
 */
public final class ServiceUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ServiceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
