package io.echomq.queue.limits;

import io.echomq.queue.WireName;

/**
 * Where a queue's limits in force came from. The last change wins: limits from configuration
 * are applied only when the configuration changed since it last applied them, so limits set
 * over the API stand across restarts until then.
 */
public enum LimitsSource implements WireName {
    CONFIG,
    API;

    static LimitsSource of(String wireName) {
        return WireName.find(LimitsSource.class, wireName)
                .orElseThrow(() -> new IllegalStateException("unknown limits source '" + wireName + "'"));
    }
}
