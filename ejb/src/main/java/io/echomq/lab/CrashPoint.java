package io.echomq.lab;

import io.echomq.queue.WireName;

/**
 * The points in one delivery where the lab makes a worker die, named as in the duplicate-window
 * argument: a crash at LEASE runs nothing (clean re-run); at EFFECT or ACK it falls in the
 * window between the effect and the acknowledgement (redelivered, applied once through the
 * effect store); at DONE it is clean. Each is one point of the worker's
 * {@link io.echomq.worker.FaultInjector}.
 */
public enum CrashPoint implements WireName {
    /** After the claim, before the effect transaction starts. */
    LEASE,
    /** After the effect transaction committed, before anything else. */
    EFFECT,
    /** Just before the acknowledgement is handed over: it never reaches the server. */
    ACK,
    /** After the acknowledgement was handed to the turn that sends it. */
    DONE
}
