package io.echomq.testkit.services;

import java.util.Optional;

/**
 * A setting given either as a system property (handy from an IDE or {@code -D} on the Maven
 * command line) or as an environment variable (handy in CI). The property wins so that a single
 * run can override what the shell exports.
 */
public final class EnvironmentSetting {

    public static final String VALKEY_URL = "ECHOMQ_TEST_VALKEY_URL";
    static final String JDBC_URL = "ECHOMQ_TEST_JDBC_URL";
    static final String JDBC_USER = "ECHOMQ_TEST_JDBC_USER";
    static final String JDBC_PASSWORD = "ECHOMQ_TEST_JDBC_PASSWORD";
    /**
     * "true": a PostgreSQL the harness starts keeps fsync, synchronous_commit and
     * full_page_writes on, as in production (benchmarks); by default they are off, for speed.
     */
    public static final String POSTGRES_DURABLE = "ECHOMQ_TEST_PG_DURABLE";

    private EnvironmentSetting() {
    }

    static Optional<String> value(String name) {
        String fromProperty = System.getProperty(name);
        if (fromProperty != null && !fromProperty.isBlank()) {
            return Optional.of(fromProperty.trim());
        }
        String fromEnvironment = System.getenv(name);
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return Optional.of(fromEnvironment.trim());
        }
        return Optional.empty();
    }

    static boolean postgresDurable() {
        return value(POSTGRES_DURABLE).map(Boolean::parseBoolean).orElse(false);
    }

    static boolean runningInCi() {
        return value("CI").map(v -> !v.equalsIgnoreCase("false") && !v.equals("0")).orElse(false);
    }
}
