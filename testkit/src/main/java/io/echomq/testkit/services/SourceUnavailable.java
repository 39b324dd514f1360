package io.echomq.testkit.services;

/**
 * A way of getting a server does not apply here (program not installed, no Docker engine): the
 * next way is tried, and the reason ends up in the failure message if none works.
 */
public final class SourceUnavailable extends Exception {

    private static final long serialVersionUID = 1L;

    public SourceUnavailable(String reason) {
        super(reason, null, false, false);
    }
}
