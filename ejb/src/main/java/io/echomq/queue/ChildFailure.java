package io.echomq.queue;

/**
 * What a flow child that ends {@code dead} or {@code cancelled} does to its parent, decided when
 * the flow is made. A completed child only counts towards its parent's wait.
 */
public enum ChildFailure implements WireName {
    /** The parent ends dead at once, and its children that have not settled are cancelled. The default. */
    FAIL_PARENT,
    /** The child counts as settled: the parent runs when all have, and its handler sees this child's outcome. */
    RUN_PARENT,
    /** The child is dropped from the wait: it counts as settled, and the parent's handler is not shown it. */
    DROP;

    public static ChildFailure fromWireName(String name) {
        return WireName.find(ChildFailure.class, name).orElseThrow(
                () -> new InvalidRequestException("onFailure", "must be one of " + WireName.all(ChildFailure.class) + ", was '" + name + "'"));
    }
}
