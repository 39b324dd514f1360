package io.echomq.runtime;

/** Whether one outside service answers, and what it said when it did not. */
public record DependencyCheck(String name, boolean up, String detail) {
}
