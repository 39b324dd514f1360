package io.echomq.queue;

/**
 * What to do at start when the Valkey server's {@code maxmemory-policy} is not
 * {@code noeviction}: any eviction policy may silently delete queue keys, losing jobs.
 */
public enum EvictionPolicyCheck {
    /** Log a loud warning and go on. */
    WARN,
    /** Refuse to start ({@link UnsafeServerException}). */
    REFUSE
}
