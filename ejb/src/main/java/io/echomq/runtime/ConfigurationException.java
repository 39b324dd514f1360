package io.echomq.runtime;

/**
 * A configuration value the engine cannot run with. Thrown at deployment, which then fails;
 * the message names the key (and its environment-variable form) and says what is expected.
 */
public class ConfigurationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;

    public ConfigurationException(String key, String problem) {
        super("EchoMQ configuration " + key + (key.equals(envName(key)) ? "" : " (env " + envName(key) + ")") + ": " + problem);
        this.key = key;
    }

    public String key() {
        return key;
    }

    /** The environment variable MicroProfile Config maps to {@code key}. */
    static String envName(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(java.util.Locale.ROOT);
    }
}
