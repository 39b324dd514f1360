package io.echomq.rar;

import io.echomq.runtime.ConfigReader;
import io.echomq.runtime.EngineConfig;
import java.util.HashMap;
import java.util.Map;

/**
 * The adapter's settings: the engine's own keys ({@code echomq.valkey.url},
 * {@code echomq.worker.*}, {@code echomq.maintenance.*}, … as the README lists them), read from
 * the adapter's config properties, then the JVM's system properties, then the environment by
 * MicroProfile Config's rule ({@code ECHOMQ_VALKEY_URL}). MicroProfile Config itself is not
 * asked: a resource adapter has no application whose configuration it could read on every
 * server. The {@code echomq.jdbc.*} keys do not apply: the adapter works on the application's
 * data source.
 */
final class AdapterConfig {

    private AdapterConfig() {
    }

    /**
     * @param adapterProperties the keys the adapter's config properties set (they win)
     */
    static EngineConfig read(Map<String, String> adapterProperties) {
        Map<String, String> merged = new HashMap<>(System.getenv());
        System.getProperties().forEach((key, value) -> merged.put(String.valueOf(key), String.valueOf(value)));
        merged.putAll(adapterProperties);
        if (!merged.containsKey("echomq.valkey.url") && !merged.containsKey("ECHOMQ_VALKEY_URL")
                && !merged.containsKey("echomq.valkey.cluster-nodes") && !merged.containsKey("ECHOMQ_VALKEY_CLUSTER_NODES")) {
            merged.put("echomq.valkey.url", DEFAULT_VALKEY_URL);
        }
        return EngineConfig.withoutOwnDatabase(ConfigReader.environment(merged));
    }

    /**
     * One key's value by the same order as {@link #read}: the adapter's properties, the JVM's
     * system properties, then the environment ({@code a.b-c} as {@code A_B_C}); null when none.
     */
    static String value(Map<String, String> adapterProperties, String key) {
        if (adapterProperties.containsKey(key)) {
            return adapterProperties.get(key);
        }
        String property = System.getProperty(key);
        return property != null ? property : System.getenv(key.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_"));
    }

    /** A Valkey on this host, as a developer runs one. */
    static final String DEFAULT_VALKEY_URL = "redis://127.0.0.1:6379";
}
