package io.echomq.runtime;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * Typed reads from MicroProfile Config where every bad value becomes a
 * {@link ConfigurationException} naming its key. Absent keys take the documented default.
 */
public final class ConfigReader {

    private final Function<String, Optional<String>> source;

    public ConfigReader(Config config) {
        this.source = key -> config.getOptionalValue(key, String.class);
    }

    private ConfigReader(Function<String, Optional<String>> source) {
        this.source = source;
    }

    /**
     * The same keys read from environment variables by MicroProfile Config's rule
     * ({@code echomq.idempotency.window-ms} is {@code ECHOMQ_IDEMPOTENCY_WINDOW_MS}), for the
     * engine outside an application server, so it is configured like the WAR.
     */
    public static ConfigReader environment(Map<String, String> environment) {
        return new ConfigReader(key -> Optional.ofNullable(environment.get(key))
                .or(() -> Optional.ofNullable(environment.get(ConfigurationException.envName(key)))));
    }

    public Optional<String> optional(String key) {
        return raw(key).map(String::strip).filter(v -> !v.isEmpty());
    }

    public String required(String key, String hint) {
        return optional(key).orElseThrow(() -> new ConfigurationException(key, "is required: " + hint));
    }

    public long number(String key, long fallback, long min, long max) {
        Optional<String> value = optional(key);
        if (value.isEmpty()) {
            return fallback;
        }
        long n;
        try {
            n = Long.parseLong(value.get().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new ConfigurationException(key, "must be a whole number, was '" + value.get() + "'");
        }
        if (n < min || n > max) {
            throw new ConfigurationException(key, "must be between " + min + " and " + max + ", was " + n);
        }
        return n;
    }

    public int integer(String key, int fallback, int min, int max) {
        return (int) number(key, fallback, min, max);
    }

    public Duration millis(String key, Duration fallback, Duration min, Duration max) {
        return Duration.ofMillis(number(key, fallback.toMillis(), min.toMillis(), max.toMillis()));
    }

    public boolean flag(String key, boolean fallback) {
        Optional<String> value = optional(key);
        if (value.isEmpty()) {
            return fallback;
        }
        return switch (value.get().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new ConfigurationException(key, "must be true or false, was '" + value.get() + "'");
        };
    }

    public <E extends Enum<E>> E choice(String key, Class<E> type, E fallback) {
        Optional<String> value = optional(key);
        if (value.isEmpty()) {
            return fallback;
        }
        try {
            return Enum.valueOf(type, value.get().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(key, "must be one of " + Arrays.toString(type.getEnumConstants())
                    + ", was '" + value.get() + "'");
        }
    }

    /** A comma-separated list; empty when absent. */
    public List<String> list(String key) {
        return optional(key).map(v -> Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList())
                .orElse(List.of());
    }

    private Optional<String> raw(String key) {
        try {
            return source.apply(key);
        } catch (RuntimeException e) {
            throw new ConfigurationException(key, "cannot be read: " + e.getMessage());
        }
    }
}
