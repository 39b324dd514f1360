package io.echomq.reliability;

/**
 * How big a reliability run is: {@code BOUNDED} for CI (the default), {@code LARGE} with
 * {@code -Dechomq.reliability.size=large}.
 */
public enum ReliabilitySize {
    BOUNDED, LARGE;

    public static final String PROPERTY = "echomq.reliability.size";

    public static ReliabilitySize current() {
        return "large".equalsIgnoreCase(System.getProperty(PROPERTY, "bounded")) ? LARGE : BOUNDED;
    }

    /** The figure for this size: e.g. {@code pick(500, 5_000)} jobs. */
    public static int pick(int bounded, int large) {
        return current() == LARGE ? large : bounded;
    }
}
