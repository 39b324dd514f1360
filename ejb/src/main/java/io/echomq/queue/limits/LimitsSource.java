package io.echomq.queue.limits;

import java.util.Arrays;

/**
 * Where a queue's limits in force came from. The last change wins: limits from configuration
 * are applied only when the configuration changed since it last applied them, so limits set
 * over the API stand across restarts until then.
 */
public enum LimitsSource {
    CONFIG("config"),
    API("api");

    private final String wireName;

    LimitsSource(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    static LimitsSource of(String wireName) {
        return Arrays.stream(values()).filter(s -> s.wireName.equals(wireName)).findFirst()
                .orElseThrow(() -> new IllegalStateException("unknown limits source '" + wireName + "'"));
    }
}
