package io.echomq.testkit.services;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Swaps the database in a PostgreSQL JDBC URL, keeping host list and parameters as they were. */
public final class JdbcUrl {

    private static final Pattern WITH_HOST = Pattern.compile("^(jdbc:postgresql://[^/?]*)(/[^?]*)?(\\?.*)?$");
    private static final Pattern WITHOUT_HOST = Pattern.compile("^jdbc:postgresql:(?!//)([^?]*)(\\?.*)?$");

    private JdbcUrl() {
    }

    public static String withDatabase(String jdbcUrl, String database) {
        Matcher withHost = WITH_HOST.matcher(jdbcUrl);
        if (withHost.matches()) {
            return withHost.group(1) + "/" + database + nullToEmpty(withHost.group(3));
        }
        Matcher withoutHost = WITHOUT_HOST.matcher(jdbcUrl);
        if (withoutHost.matches()) {
            return "jdbc:postgresql:" + database + nullToEmpty(withoutHost.group(2));
        }
        throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + redact(jdbcUrl));
    }

    /** The URL without a password parameter, for messages and logs. */
    public static String redact(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }
}
