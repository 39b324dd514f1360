package io.echomq.maintenance;

import java.time.Duration;

/**
 * What one duty changed since its last log line. The first change is logged at once; after that
 * a line at most every {@link #EVERY}, with the sum: a duty that works every second under load
 * (the effect retention deletes rows each second) would otherwise write a line a second.
 */
final class ChangeTally {

    static final Duration EVERY = Duration.ofMinutes(1);

    private Pass unlogged = Pass.NOTHING;
    private long loggedAtNanos;
    private boolean everLogged;

    /**
     * Adds a run's changes at {@code nowNanos} (any run, with changes or none, so a sum never
     * waits for the next change to be logged); answers the sum to log now, or {@code null}.
     */
    synchronized Pass add(Pass pass, long nowNanos) {
        unlogged = unlogged.plus(pass);
        if (unlogged.changes() == 0 || everLogged && nowNanos - loggedAtNanos < EVERY.toNanos()) {
            return null;
        }
        Pass due = unlogged;
        unlogged = Pass.NOTHING;
        loggedAtNanos = nowNanos;
        everLogged = true;
        return due;
    }
}
