package io.echomq.api;

/** What a flow child that ends dead or cancelled does to its parent ({@link FlowRequest#onFailure()}). */
public enum OnChildFailure {
    /** The parent ends dead at once, and its children that have not settled are cancelled. The default. */
    FAIL_PARENT,
    /** The child counts as settled: the parent runs when all have, and sees this child's outcome. */
    RUN_PARENT,
    /** The child is dropped from the wait: it counts as settled, and the parent is not shown it. */
    DROP
}
