package io.echomq.queue;

/**
 * The Valkey server is configured in a way that can silently lose jobs (an eviction policy
 * other than {@code noeviction}), and the settings say to refuse such a server.
 */
public class UnsafeServerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnsafeServerException(String message) {
        super(message);
    }
}
