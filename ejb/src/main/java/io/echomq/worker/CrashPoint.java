package io.echomq.worker;

/**
 * The points in one delivery where a worker can die, named as in the duplicate-window
 * argument: a crash at LEASE runs nothing (clean re-run); at EFFECT or ACK it falls in the
 * window between the effect and the acknowledgement (redelivered, applied once through the
 * effect store); at DONE it is clean.
 */
public enum CrashPoint {
    /** After the claim, before the effect transaction starts. */
    LEASE,
    /** After the effect transaction committed, before anything else. */
    EFFECT,
    /** Just before the acknowledgement ({@code complete}) is sent: it never reaches the server. */
    ACK,
    /** After the acknowledgement was accepted. */
    DONE
}
